// An account row for tests and benches that work below the sign-up page (memories need their owner).

import type { Storage } from '../../api/app-storage.ts';
import { newAccountId } from '../../api/identity/accounts/account.ts';

export async function addAccount(storage: Storage, id: string = newAccountId()): Promise<string> {
  await storage.identity.accounts.create({
    id,
    email: `${id}@example.com`,
    name: id,
    passwordHash: 'x',
    createdAt: 1,
    updatedAt: 1,
  });
  return id;
}
