// zod schemas of the office membership routes.
import { z } from 'zod';
import { dnsLabel } from '../../../integrations/registry/names.ts';
import { emailField } from '../accounts/account.ts';
import { officeRoles } from './office-members-repo.ts';

export const memberParams = z.strictObject({
  officeID: dnsLabel,
  accountId: z
    .string()
    .max(29)
    .regex(/^acct_[a-z2-7]{24}$/),
});

export const putMemberBody = z
  .strictObject({
    // The check runs after trimming, so the document states it as the pattern zod's email check uses.
    email: emailField
      .meta({ pattern: z.regexes.email.source })
      .describe('The account to add; it must have signed up already'),
    role: z
      .enum(officeRoles)
      .default('operator')
      .describe('owner: may manage members; operator: may operate'),
  })
  .meta({ id: 'PutOfficeMember' });

export const memberSchema = z
  .object({
    officeId: z.string(),
    accountId: z.string(),
    email: z.string(),
    name: z.string(),
    role: z.enum(officeRoles),
    addedAt: z.iso.datetime(),
  })
  .meta({ id: 'OfficeMember' });

export const membersSchema = z
  .object({ officeId: z.string(), members: z.array(memberSchema) })
  .meta({ id: 'OfficeMembers' });
