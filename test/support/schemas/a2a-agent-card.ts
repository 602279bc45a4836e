// The A2A AgentCard as A2A 1.0.1 defines it (specification/a2a.proto, ProtoJSON in camelCase),
// written from the spec's text: every REQUIRED field, the one-ofs, and the §5.8 rule for bindings.
import { z } from 'zod';

const text = z.string().min(1);
const url = z.url();
const mediaType = z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, 'a media type');
const scopes = z.record(z.string(), z.string());

/** JSONRPC, GRPC and HTTP+JSON are the core bindings; any other SHOULD be a URI (§5.8). */
const protocolBinding = z.union([z.enum(['JSONRPC', 'GRPC', 'HTTP+JSON']), url]);

const agentInterface = z.strictObject({
  url: text,
  protocolBinding,
  tenant: z.string().optional(),
  protocolVersion: z.string().regex(/^\d+\.\d+$/, 'major.minor, e.g. "1.0"'),
});

// OAuthFlows and SecurityScheme are proto one-ofs: exactly one member, named by its field.
const oauthFlows = z.union([
  z.strictObject({
    authorizationCode: z.strictObject({
      authorizationUrl: url,
      tokenUrl: url,
      refreshUrl: url.optional(),
      scopes,
      pkceRequired: z.boolean().optional(),
    }),
  }),
  z.strictObject({
    clientCredentials: z.strictObject({ tokenUrl: url, refreshUrl: url.optional(), scopes }),
  }),
  z.strictObject({
    deviceCode: z.strictObject({
      deviceAuthorizationUrl: url,
      tokenUrl: url,
      refreshUrl: url.optional(),
      scopes,
    }),
  }),
  z.strictObject({
    implicit: z.strictObject({
      authorizationUrl: url.optional(),
      refreshUrl: url.optional(),
      scopes: scopes.optional(),
    }),
  }),
  z.strictObject({
    password: z.strictObject({
      tokenUrl: url.optional(),
      refreshUrl: url.optional(),
      scopes: scopes.optional(),
    }),
  }),
]);

const description = z.string().optional();
const securityScheme = z.union([
  z.strictObject({
    apiKeySecurityScheme: z.strictObject({
      description,
      location: z.enum(['query', 'header', 'cookie']),
      name: text,
    }),
  }),
  z.strictObject({
    httpAuthSecurityScheme: z.strictObject({
      description,
      scheme: text,
      bearerFormat: z.string().optional(),
    }),
  }),
  z.strictObject({
    oauth2SecurityScheme: z.strictObject({
      description,
      flows: oauthFlows,
      oauth2MetadataUrl: url.optional(),
    }),
  }),
  z.strictObject({
    openIdConnectSecurityScheme: z.strictObject({ description, openIdConnectUrl: url }),
  }),
  z.strictObject({ mtlsSecurityScheme: z.strictObject({ description }) }),
]);

const securityRequirement = z.strictObject({
  schemes: z.record(z.string(), z.strictObject({ list: z.array(z.string()) })),
});

const agentSkill = z.strictObject({
  id: text,
  name: text,
  description: text,
  tags: z.array(z.string()),
  examples: z.array(z.string()).optional(),
  inputModes: z.array(mediaType).optional(),
  outputModes: z.array(mediaType).optional(),
  securityRequirements: z.array(securityRequirement).optional(),
});

export const a2aAgentCard = z
  .strictObject({
    name: text,
    description: text,
    supportedInterfaces: z.array(agentInterface).min(1),
    provider: z.strictObject({ url, organization: text }).optional(),
    version: text,
    documentationUrl: url.optional(),
    capabilities: z.strictObject({
      streaming: z.boolean().optional(),
      pushNotifications: z.boolean().optional(),
      extensions: z
        .array(
          z.strictObject({
            uri: text,
            description,
            required: z.boolean().optional(),
            params: z.record(z.string(), z.unknown()).optional(),
          }),
        )
        .optional(),
      extendedAgentCard: z.boolean().optional(),
    }),
    securitySchemes: z.record(z.string(), securityScheme).optional(),
    securityRequirements: z.array(securityRequirement).optional(),
    defaultInputModes: z.array(mediaType),
    defaultOutputModes: z.array(mediaType),
    skills: z.array(agentSkill),
    signatures: z
      .array(
        z.strictObject({
          protected: text,
          signature: text,
          header: z.record(z.string(), z.unknown()).optional(),
        }),
      )
      .optional(),
    iconUrl: url.optional(),
  })
  // A requirement can only name a scheme the card declares.
  .refine(
    (card) =>
      [...(card.securityRequirements ?? []), ...card.skills.flatMap((s) => s.securityRequirements ?? [])]
        .flatMap((r) => Object.keys(r.schemes))
        .every((name) => Object.hasOwn(card.securitySchemes ?? {}, name)),
    'a security requirement names a scheme missing from securitySchemes',
  );
