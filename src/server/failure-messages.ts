/**
 * The words of every answer `local serve` gives itself, outside the API's envelope rules (a
 * refused token, no such route, a body too large...): said once here, so the server's answers
 * and the OpenAPI document's examples of them are the same text (test/server/openapi-answers.test.ts).
 */
export const FAILURE_MESSAGES = {
  notAllowed: (): string => 'not allowed to use the external API',
  noSuchRoute: (path: string): string => `no such route: ${path}`,
  methodNotAllowed: (method: string, path: string): string => `method ${method} not allowed on ${path}`,
  headersTooSlow: (): string => 'the request headers did not arrive in time',
  bodyTooSlow: (): string => 'the request body did not arrive in time',
  bodyTooLarge: (limitBytes: number): string => `request body larger than ${limitBytes} bytes`,
  urlTooLong: (maxBytes: number): string => `the request URL is longer than ${maxBytes} bytes`,
  notJson: (): string => 'a request body must be declared Content-Type: application/json',
  headersTooLarge: (maxBytes: number): string => `the request headers are larger than ${maxBytes} bytes`,
  injected: (status: '429' | '500' | '503'): string =>
    status === '429'
      ? 'too many requests (injected fault)'
      : status === '500'
        ? 'internal server error (injected fault)'
        : 'service unavailable (injected fault)',
  internal: (): string => 'internal server error',
  storeBusy: (): string => 'service unavailable: the store is busy or unreadable; retry later',
} as const;
