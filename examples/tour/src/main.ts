import { greet } from "./greet.ts";

console.log(greet());
