// The CLI's OAuth and login failures, apart from the OAuth client so that reading a stored login
// never loads openid-client unless it has to refresh.

export class AuthError extends Error {
  override readonly name = 'AuthError';
  /** The OAuth error code (access_denied, expired_token, invalid_grant, …) or `unreachable`. */
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}
