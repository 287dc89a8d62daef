/**
 * The roles of the admin API and the named tokens that carry them (`ADMIN_TOKENS`, docs/operations.md "Roles and sessions"). Kept free of
 * Nest imports: the configuration parses `ADMIN_TOKENS` with it before the application exists.
 */
export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** Whether `held` includes what `required` allows: viewer < operator < admin. */
export const roleAllows = (held: Role, required: Role): boolean => ROLES.indexOf(held) >= ROLES.indexOf(required);

/** Who made a request: the token's name and role (`ADMIN_TOKEN` is `{ name: 'admin', role: 'admin' }`). */
export interface AdminActor {
  name: string;
  role: Role;
}

export interface AdminTokenEntry extends AdminActor {
  token: string;
}

export const MIN_TOKEN_LENGTH = 16;
const NAME = /^[A-Za-z0-9_-]{1,64}$/;

function entries(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/**
 * What is wrong with `ADMIN_TOKENS`, one reason per bad entry; the entries are named by position and name, never by
 * their token. An empty list means every entry is good.
 */
export function adminTokensProblems(value: string, adminToken?: string): string[] {
  const problems: string[] = [];
  const seen = new Set<string>(['admin']);
  // Which name holds each token: one token under two names (or roles) would make the caller ambiguous.
  const holders = new Map<string, string>(adminToken ? [[adminToken, 'ADMIN_TOKEN']] : []);
  entries(value).forEach((entry, index) => {
    const at = `entry ${index + 1}`;
    const first = entry.indexOf(':');
    const second = first < 0 ? -1 : entry.indexOf(':', first + 1);
    if (first < 0 || second < 0) {
      problems.push(`${at} must be name:role:token`);
      return;
    }
    const name = entry.slice(0, first).trim();
    const role = entry.slice(first + 1, second).trim();
    const token = entry.slice(second + 1).trim();
    if (!NAME.test(name)) problems.push(`${at}: the name must be 1 to 64 letters, digits, dashes or underscores`);
    else if (seen.has(name)) problems.push(`${at}: the name ${name} is used twice${name === 'admin' ? ' (admin is ADMIN_TOKEN)' : ''}`);
    seen.add(name);
    if (!(ROLES as readonly string[]).includes(role)) problems.push(`${at} (${name}): the role must be viewer, operator or admin`);
    if (token.length < MIN_TOKEN_LENGTH) problems.push(`${at} (${name}): the token must be at least ${MIN_TOKEN_LENGTH} characters`);
    else if (holders.has(token)) problems.push(`${at} (${name}): the token is the same as ${holders.get(token)}'s; each name needs its own`);
    else holders.set(token, name);
  });
  return problems;
}

/** The entries of a valid `ADMIN_TOKENS` (checked by `adminTokensProblems` at start). */
export function parseAdminTokens(value: string | undefined): AdminTokenEntry[] {
  return entries(value).map((entry) => {
    const first = entry.indexOf(':');
    const second = entry.indexOf(':', first + 1);
    return { name: entry.slice(0, first).trim(), role: entry.slice(first + 1, second).trim() as Role, token: entry.slice(second + 1).trim() };
  });
}
