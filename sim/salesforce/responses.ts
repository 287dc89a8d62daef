import type { SimRequest, SimResponse } from '../../test/sim/common/sim-server.js';

/** A Salesforce error body: a list of `{message, errorCode, fields?}` (Status Codes and Error Responses page). */
export const errorBody = (status: number, errorCode: string, message: string, fields?: string[]): SimResponse => ({
  status,
  body: [{ message, errorCode, ...(fields ? { fields } : {}) }],
});

export const notFound = () => errorBody(404, 'NOT_FOUND', 'The requested resource does not exist');

/** A request's JSON body when it is an object; undefined for anything else. */
export function jsonObject(req: SimRequest): Record<string, unknown> | undefined {
  const value = req.json;
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
