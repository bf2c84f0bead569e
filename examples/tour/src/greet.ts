// TODO: greet people by name
export function greet(): string {
  return "Hello, world";
}
