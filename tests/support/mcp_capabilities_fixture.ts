/**
 * What tests/support/mcp_capabilities_server.ts sends, shared with the tests that check it
 * arrived: its form and its picture.
 * @module
 */

/** A 1×1 red PNG, base64. */
export const RED_DOT_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/** The form the server's `ask_form` tool sends (`elicitation/create` params). */
export const FORM = {
  message: "Who should get the report?",
  requestedSchema: {
    type: "object" as const,
    properties: {
      recipient: { type: "string" as const, title: "Recipient", minLength: 2 },
      copies: { type: "integer" as const, description: "How many copies", default: 1 },
      format: { type: "string" as const, enum: ["pdf", "html"] },
    },
    required: ["recipient", "format"],
  },
};
