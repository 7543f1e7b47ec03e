import { badInput, resolveLimit } from '@pylon/kit';
import type { OrganizationRecord } from '../../domain/records.js';
import { checkTimeZone, optionalText, requiredText } from '../../domain/validation.js';
import type { IdentityRepository, Organization } from '../../shared/identity.repository.js';

export type CreateOrganizationInput = Partial<OrganizationRecord> & { name: string };

export async function createOrganization(repo: IdentityRepository, accountId: string, input: CreateOrganizationInput): Promise<Organization> {
  await repo.getAccount(accountId);
  const languageCode = optionalText(input.languageCode, 'languageCode', 35) ?? null;
  if (languageCode && !/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/.test(languageCode)) {
    throw badInput('languageCode', `languageCode '${languageCode}' is not a language tag such as en-US`);
  }
  const timezone = optionalText(input.timezone, 'timezone', 64) ?? null;
  return repo.addOrganization(accountId, {
    name: requiredText(input.name, 'name'),
    address1: optionalText(input.address1, 'address1') ?? null,
    address2: optionalText(input.address2, 'address2') ?? null,
    city: optionalText(input.city, 'city') ?? null,
    state: optionalText(input.state, 'state') ?? null,
    postalCode: optionalText(input.postalCode, 'postalCode') ?? null,
    country: optionalText(input.country, 'country') ?? null,
    phone: optionalText(input.phone, 'phone') ?? null,
    fax: optionalText(input.fax, 'fax') ?? null,
    timezone: timezone === null ? null : checkTimeZone(timezone),
    languageCode,
  });
}

export function listOrganizations(
  repo: IdentityRepository,
  accountId: string,
  args: { id?: string[] | null; limit?: number | null; where?: unknown; order?: unknown },
): Promise<Organization[]> {
  return repo.listOrganizations(accountId, args.id?.length ? args.id : null, resolveLimit(args.limit), { where: args.where, order: args.order });
}
