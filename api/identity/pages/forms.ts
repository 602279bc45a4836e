// zod schemas of the identity forms; a failed parse becomes per-field messages on the re-rendered page.
import { z } from 'zod';
import { dnsLabel } from '../../../integrations/registry/names.ts';
import { emailField, nameField, passwordField } from '../accounts/account.ts';
import { keyName } from '../keys/schemas.ts';
import { apiKeyScopes } from '../scopes.ts';
import type { FieldErrors } from './form-kit.ts';

const formText = z.string().max(4096).optional();

/** Every form carries these; unknown fields are ignored as browsers may add their own. */
const common = { _csrf: formText, return_to: formText };

export const signupForm = z.object({
  ...common,
  name: nameField,
  email: emailField,
  password: passwordField,
});

export const signinForm = z.object({
  ...common,
  email: z.string().trim().min(1, 'is required').max(254, 'is too long'),
  password: z.string().min(1, 'is required').max(1024, 'is too long'),
});

export const plainForm = z.object(common);

const labels: Record<string, string> = {
  name: 'Name',
  email: 'Email',
  password: 'Password',
  scope: 'Scopes:',
  office: 'Offices:',
};

/** The first message of each field, phrased for a person. */
export function fieldErrors(error: z.ZodError): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? 'form');
    if (out[key]) continue;
    const message = issue.code === 'invalid_type' ? 'is required' : issue.message;
    out[key] = `${labels[key] ?? key} ${message}`;
  }
  return out;
}

/** What the browser typed, to refill the form (never the password). */
export function typedValues(body: unknown): { name?: string; email?: string } {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  return {
    ...(typeof b.name === 'string' ? { name: b.name.slice(0, 200) } : {}),
    ...(typeof b.email === 'string' ? { email: b.email.slice(0, 300) } : {}),
  };
}

const asList = (v: unknown) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The new-key form: repeated `scope` and `office` fields arrive as a string or a list. */
export const keyForm = z
  .object({
    ...common,
    name: keyName,
    scope: z.preprocess(asList, z.array(z.enum(apiKeyScopes)).min(1, 'choose at least one scope')),
    binding: z.enum(['all', 'selected']).default('all'),
    office: z.preprocess(asList, z.array(dnsLabel).max(100)),
    expires: z.enum(['never', '30', '90', '365']).default('never'),
  })
  .refine((f) => f.binding === 'all' || f.office.length > 0, {
    path: ['office'],
    message: 'choose at least one office',
  })
  .transform((f) => ({
    name: f.name,
    scopes: f.scope,
    offices: f.binding === 'all' ? null : f.office,
    expiresInDays: f.expires === 'never' ? null : Number(f.expires),
  }));
