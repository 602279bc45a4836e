// UCP-Agent: an RFC 8941 dictionary whose `profile` member names the agent's UCP profile (parsed with the
// structured-headers library, never by hand).
import { type Dictionary, parseDictionary } from 'structured-headers';
import { UcpError } from './errors.ts';

export interface UcpAgent {
  profile: URL;
}

/** Parses the header or throws `invalid_profile_url`; plain http is accepted only when `allowHttp`. */
export function parseUcpAgent(header: string | string[] | undefined, allowHttp: boolean): UcpAgent {
  if (header === undefined || header === '') {
    throw new UcpError(
      'invalid_profile_url',
      'The UCP-Agent header is required: UCP-Agent: profile="https://…".',
    );
  }
  let dict: Dictionary;
  try {
    dict = parseDictionary(Array.isArray(header) ? header.join(', ') : header);
  } catch (err) {
    throw new UcpError(
      'invalid_profile_url',
      `UCP-Agent is not an RFC 8941 dictionary: ${(err as Error).message}`,
    );
  }
  const member = dict.get('profile');
  const value = member?.[0];
  if (typeof value !== 'string') {
    throw new UcpError(
      'invalid_profile_url',
      'UCP-Agent must carry profile as a quoted string: profile="https://…".',
    );
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UcpError('invalid_profile_url', `UCP-Agent profile "${value}" is not an absolute URL.`);
  }
  const schemes = allowHttp ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol) || url.username || url.password) {
    throw new UcpError(
      'invalid_profile_url',
      `UCP-Agent profile "${value}" must be an https URL without credentials.`,
    );
  }
  return { profile: url };
}
