import * as v from 'valibot';

/**
 * Every error code the service answers with: its HTTP status, the short `error` word of the envelope, and a
 * message that tells the caller how to fix it (`field` is named where one is at fault). The API guide
 * (docs/api.md#error-codes) and /openapi.json list this table; add a code only when a caller can act on it.
 */
export const ERROR_CODES = {
  EMAIL_REQUIRED: {
    status: 400,
    error: 'missing_field',
    message: (f = 'email') => `Include "${f}": an email address is required.`,
  },
  FIELD_REQUIRED: {
    status: 400,
    error: 'missing_field',
    message: (f = 'field') => `Include "${f}": it is required and must not be empty.`,
  },
  INVALID_EMAIL: {
    status: 400,
    error: 'invalid_email',
    message: (f = 'email') => `"${f}" must be a valid email address, such as name@company.com.`,
  },
  WORK_EMAIL_REQUIRED: {
    status: 400,
    error: 'work_email_required',
    message: (f = 'email') => `"${f}" must be a work address: personal and disposable email domains are not accepted.`,
  },
  INVALID_FIELD: {
    status: 400,
    error: 'invalid_field',
    message: (f = 'field', detail = 'has the wrong type or length') => `"${f}" ${detail}.`,
  },
  INVALID_JSON: {
    status: 400,
    error: 'invalid_json',
    message: (_f?: string, detail = 'must be a JSON object; check for a syntax error') => `The body ${detail}.`,
  },
  INVALID_FORM: {
    status: 400,
    error: 'invalid_form',
    message: (_f?: string, detail = 'is not a well-formed form post') =>
      `The form body ${detail}; send the form's fields as a browser does (application/x-www-form-urlencoded or multipart/form-data).`,
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    error: 'unsupported_media_type',
    message: (_f?: string, detail = 'Send the body as JSON with "Content-Type: application/json"') => `${detail}.`,
  },
  INVALID_HOST: {
    status: 400,
    error: 'invalid_host',
    message: () => 'The Host header is not a valid host name (with an optional :port); send the host you called.',
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    error: 'payload_too_large',
    message: (_f?: string, limit = 'the limit') => `The body is larger than ${limit}; shorten the text fields.`,
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    error: 'method_not_allowed',
    message: (_f?: string, allow = '') => `This endpoint does not support that method; use ${allow}.`,
  },
  API_ENDPOINT_NOT_FOUND: {
    status: 404,
    error: 'not_found',
    message: () => 'No API endpoint at this path; see the documentation for the list of endpoints.',
  },
  NOT_FOUND: { status: 404, error: 'not_found', message: () => 'Nothing at this path.' },
  INVALID_IDEMPOTENCY_KEY: {
    status: 400,
    error: 'invalid_idempotency_key',
    message: () =>
      'The Idempotency-Key header must be 1 to 255 printable ASCII characters; a UUID made once per submission is ideal.',
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 409,
    error: 'idempotency_key_reused',
    message: () =>
      'This Idempotency-Key was already used for a different submission in the last 24 hours; make a new key for each new submission, and reuse one only to retry the same body.',
  },
  RATE_LIMITED: {
    status: 429,
    error: 'rate_limited',
    message: () => 'Too many requests; wait for the time in Retry-After, then try again.',
  },
  QUEUE_UNAVAILABLE: {
    status: 503,
    error: 'queue_unavailable',
    // After the deadline Redis may still complete the add, so "not recorded" would be untrue.
    message: () =>
      'The queue did not confirm the submission in time, so it may not have been recorded; retry after the time in Retry-After (retrying is safe with the same Idempotency-Key).',
  },
  INVALID_JSONRPC_REQUEST: {
    status: 400,
    error: 'invalid_request',
    message: (_f?: string, detail = 'is not a JSON-RPC 2.0 request') =>
      `The body ${detail}; send {"jsonrpc": "2.0", "method": ..., "id": ...}.`,
  },
  UNSUPPORTED_PROTOCOL_VERSION: {
    status: 400,
    error: 'unsupported_protocol_version',
    message: (_f?: string, supported = '') => `Unsupported MCP-Protocol-Version header; use one of ${supported}.`,
  },
  FORBIDDEN_ORIGIN: {
    status: 403,
    error: 'forbidden_origin',
    message: () =>
      'Requests from this Origin are not allowed; call from an allowed site, or from a server without an Origin header.',
  },
  VIDEO_FEED_UNAVAILABLE: {
    status: 502,
    error: 'feed_unavailable',
    message: (_f?: string, detail = 'could not be read; retry with exponential backoff') => `The video feed ${detail}.`,
  },
  INTERNAL_ERROR: {
    status: 500,
    error: 'internal_error',
    message: () => 'Something went wrong on our side; retry with exponential backoff.',
  },
  // careers-apply's attached CV (`cvFile`): each names what to send instead.
  CV_INVALID_BASE64: {
    status: 400,
    error: 'invalid_cv',
    message: () =>
      '"cvFile.data" is not valid base64; send the file\'s bytes base64-encoded (a data: URL prefix is accepted and stripped).',
  },
  CV_CONTENT_MISMATCH: {
    status: 400,
    error: 'invalid_cv_content',
    message: (_f?: string, detail = 'are not what "cvFile.contentType" says') =>
      `The bytes in "cvFile.data" ${detail}; attach the file itself, and set "cvFile.contentType" to its real type (PDF, DOC or DOCX).`,
  },
  CV_TOO_LARGE: {
    status: 413,
    error: 'cv_too_large',
    message: () => 'The CV in "cvFile" is larger than 5 MiB; compress it, or send a link to it in "cv" instead.',
  },
  BODY_TIMEOUT: {
    status: 408,
    error: 'body_timeout',
    message: (_f?: string, detail = 'did not arrive in time') =>
      `The body ${detail}; send it again (from a faster connection), or send a link to the CV in "cv" instead of the file.`,
  },
  GATEWAY_NOT_READY: {
    status: 503,
    error: 'gateway_not_ready',
    message: () =>
      "This server is not ready to take submissions (its configuration differs from the other servers'); nothing was recorded. Retry after the time in Retry-After.",
  },
  CV_UPLOADS_BUSY: {
    status: 503,
    error: 'cv_uploads_busy',
    message: () =>
      'The server is receiving as many CVs as it holds at once; nothing was recorded. Retry after the time in Retry-After.',
  },
} as const satisfies Record<
  string,
  { status: number; error: string; message: (field?: string, detail?: string) => string }
>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const ErrorSchema = v.object({
  error: v.pipe(v.string(), v.description('Short error word, such as missing_field')),
  code: v.pipe(v.picklist(Object.keys(ERROR_CODES) as ErrorCode[]), v.description('Machine-readable code')),
  message: v.pipe(v.string(), v.description('Human-readable message naming the field and the fix')),
  documentation: v.pipe(v.string(), v.url(), v.description('Link explaining the fix')),
  field: v.optional(v.pipe(v.string(), v.description('The request field at fault, when there is one'))),
});
export type ErrorBody = v.InferOutput<typeof ErrorSchema>;

/** careers-apply, latest-video and /api/mcp answer errors in this shape; `error` holds the code. */
export const SimpleErrorSchema = v.object({
  error: v.string(),
  message: v.string(),
  // Added so a careers form can show its error beside the field, as the structured envelope allows.
  field: v.optional(v.pipe(v.string(), v.description('The request field at fault, when there is one'))),
});
export type SimpleErrorBody = v.InferOutput<typeof SimpleErrorSchema>;
