// Pure: the protocol version and checkout capability version a request is served at, from the agent's profile.
import { UcpError } from './errors.ts';
import type { PlatformProfile } from './platform-profile.ts';
import { CHECKOUT_CAPABILITY, isUcpVersion, UCP_VERSIONS, type UcpVersion } from './versions.ts';

export interface Negotiated {
  version: UcpVersion;
  checkoutVersion: UcpVersion;
}

/** The capability intersection is empty: UCP answers this as a business outcome (200, status error). */
export class CapabilitiesIncompatible extends UcpError {
  constructor(version: UcpVersion, message: string) {
    super('capabilities_incompatible', message, { version });
  }
}

export function negotiate(profile: PlatformProfile): Negotiated {
  const version = profile.ucp.version;
  if (!isUcpVersion(version)) {
    throw new UcpError(
      'version_unsupported',
      `UCP version ${version} is not supported. This business supports versions ${UCP_VERSIONS.join(' and ')}.`,
    );
  }
  const declared = profile.ucp.capabilities;
  // A profile that lists no capabilities is taken to speak checkout at its protocol version.
  if (declared === undefined) return { version, checkoutVersion: version };
  const offered = (declared[CHECKOUT_CAPABILITY] ?? []).map((c) => c.version ?? version);
  const mutual = UCP_VERSIONS.filter((v) => offered.includes(v));
  const checkoutVersion = mutual.at(-1);
  if (checkoutVersion === undefined) {
    throw new CapabilitiesIncompatible(
      version,
      `The agent profile offers no ${CHECKOUT_CAPABILITY} version this business supports (${UCP_VERSIONS.join(', ')}).`,
    );
  }
  return { version, checkoutVersion };
}
