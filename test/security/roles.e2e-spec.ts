import { ForbiddenException, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AdminAuthGuard } from '../../src/auth/admin-auth.guard.js';
import { AdminIdentityService } from '../../src/auth/session.service.js';
import { SignInThrottle } from '../../src/auth/sign-in-throttle.js';
import { adminTokensProblems } from '../../src/config/roles.js';
import { loadConfig } from '../../src/config/app-config.js';
import { ConfigError } from '../../src/config/environment.js';
import { mapAppointment, settled } from '../support/appointment-crm.js';
import { ADMIN_TOKEN, startHarness, type Harness } from '../support/harness.js';

type Json = any;
const json = async (res: Response): Promise<Json> => res.json();

const VIEWER = 'viewer-token-0123456789';
const OPERATOR = 'operator-token-0123456789';
const SECOND_ADMIN = 'second-admin-token-0123456789';
const ADMIN_TOKENS = `vera:viewer:${VIEWER}, otto:operator:${OPERATOR},ada:admin:${SECOND_ADMIN}`;

describe('roles: ADMIN_TOKENS, 401/403, actor on every admin write', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 5, env: { ADMIN_TOKENS } });
  });
  afterAll(() => h.close());

  const as = (token: string, path: string, init: RequestInit & { json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${token}`);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    }
    return fetch(`${h.url}${path}`, { ...init, headers, body });
  };
  const entries = async (where: string, params: unknown[] = []): Promise<Json[]> =>
    h.database.query(`SELECT id::text, kind, trigger, status, actor, detail, payload FROM sync_log WHERE ${where} ORDER BY id`, params);

  it('a viewer reads every GET', async () => {
    for (const path of ['/api/mappings', '/api/sync-logs', '/api/me']) expect((await as(VIEWER, path)).status).toBe(200);
    expect(await json(await as(VIEWER, '/api/me'))).toEqual({ name: 'vera', role: 'viewer' });
    expect(await json(await as(OPERATOR, '/api/me'))).toEqual({ name: 'otto', role: 'operator' });
    expect(await json(await h.admin('/api/me'))).toEqual({ name: 'admin', role: 'admin' });
  });

  it('a viewer writing gets 403 naming the operator role', async () => {
    const res = await as(VIEWER, '/api/mappings', { method: 'POST', json: { crm: 'appointment', appointment_id: 'V-1', project_id: '1' } });
    expect(res.status).toBe(403);
    expect(await json(res)).toEqual({ statusCode: 403, message: 'this route needs the operator role; vera is a viewer', required_role: 'operator' });
    for (const [method, path] of [
      ['POST', '/api/mappings/associate'],
      ['POST', '/api/reconcile'],
      ['DELETE', '/api/mappings/1'],
      ['POST', '/api/sync-logs/1/retry'],
    ]) {
      const refused = await as(VIEWER, path, { method });
      expect(refused.status).toBe(403);
      expect((await json(refused)).required_role).toBe('operator');
    }
    expect(await entries(`kind = 'admin_write'`)).toEqual([]);
  });

  it('401 for an unknown or missing token, as before', async () => {
    for (const headers of [{} as Record<string, string>, { authorization: `Bearer ${VIEWER}x` }, { authorization: 'Bearer not-a-token-at-all-000' }]) {
      const res = await fetch(`${h.url}/api/mappings`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('Bearer');
      expect(await json(res)).toMatchObject({ statusCode: 401 });
    }
  });

  it('an operator creates a mapping, recorded as an admin_write with the actor', async () => {
    const res = await as(OPERATOR, '/api/mappings', { method: 'POST', json: { crm: 'appointment', appointment_id: 'O-1', project_id: '2001' } });
    expect(res.status).toBe(201);
    const mapping = await json(res);
    const [write] = await entries(`kind = 'admin_write' AND payload->>'mapping_id' = $1`, [mapping.id]);
    expect(write).toMatchObject({ trigger: 'admin', status: 'succeeded', actor: 'otto' });
    expect(write.detail).toContain(`mapping ${mapping.id} created`);
    const view = await json(await as(VIEWER, `/api/sync-logs/${write.id}`));
    expect(view).toMatchObject({ kind: 'admin_write', trigger: 'admin', status: 'succeeded', actor: 'otto' });

    expect((await as(OPERATOR, `/api/mappings/${mapping.id}`, { method: 'DELETE' })).status).toBe(204);
    const [removed] = await entries(`kind = 'admin_write' AND detail LIKE $1`, [`mapping ${mapping.id} removed%`]);
    expect(removed).toMatchObject({ actor: 'otto', trigger: 'admin' });
  });

  it('an action created by an admin route carries trigger admin and the actor', async () => {
    const project = h.service.addProject().id;
    expect((await as(OPERATOR, '/api/mappings', { method: 'POST', json: { crm: 'appointment', appointment_id: 'O-2', project_id: project } })).status).toBe(
      201,
    );
    const res = await as(OPERATOR, '/api/mappings/associate', { method: 'POST' });
    expect(res.status).toBe(202);
    const { sync_log_ids } = await json(res);
    expect(sync_log_ids.length).toBeGreaterThan(0);
    const view = await json(await h.admin(`/api/sync-logs/${sync_log_ids[0]}`));
    expect(view).toMatchObject({ kind: 'associate', trigger: 'admin', actor: 'otto' });

    const reconcile = await json(await as(SECOND_ADMIN, '/api/reconcile', { method: 'POST' }));
    const [run] = await entries(`id = $1`, [reconcile.id]);
    expect(run).toMatchObject({ kind: 'reconcile', trigger: 'admin', actor: 'ada' });
  });

  it('an operator retries a failed entry; who retried is recorded, the entry kept', async () => {
    const [{ id }]: Array<{ id: string }> = await h.database.query(
      `INSERT INTO sync_log (kind, trigger, status, payload, error, finished_at, attempts) VALUES ('associate', 'webhook', 'failed', '{"mapping_ids":[]}', 'boom', now(), 8) RETURNING id::text`,
    );
    const res = await as(OPERATOR, `/api/sync-logs/${id}/retry`, { method: 'POST' });
    expect(res.status).toBe(202);
    expect(await json(res)).toMatchObject({ id, trigger: 'webhook', actor: null });
    const [write] = await entries(`kind = 'admin_write' AND payload->>'entry_id' = $1`, [id]);
    expect(write).toMatchObject({ actor: 'otto', trigger: 'admin', status: 'succeeded' });
    expect(write.detail).toContain(`retried sync log entry ${id}`);
  });

  it('the ADMIN_TOKEN actor is admin', async () => {
    const res = await h.admin('/api/mappings', { method: 'POST', json: { crm: 'appointment', appointment_id: 'A-9', project_id: '2009' } });
    const mapping = await json(res);
    const [write] = await entries(`kind = 'admin_write' AND payload->>'mapping_id' = $1`, [mapping.id]);
    expect(write.actor).toBe('admin');
    expect(write.detail).toMatch(/by admin$/);
  });

  it('a route that declares no role needs admin for writes: an operator gets 403 naming admin', async () => {
    const guard = new AdminAuthGuard(h.app.get(AdminIdentityService), new Reflector(), h.app.get(SignInThrottle));
    const request = {
      method: 'POST',
      url: '/api/connections',
      routeOptions: { url: '/api/connections' },
      ip: '127.0.0.1',
      headers: { authorization: `Bearer ${OPERATOR}` },
    };
    const context = {
      getType: () => 'http',
      getHandler: () => function connections() {},
      getClass: () => class ConnectionsController {},
      switchToHttp: () => ({ getRequest: () => request, getResponse: () => ({ header: () => undefined }) }),
    } as unknown as ExecutionContext;
    let thrown: unknown;
    try {
      await guard.canActivate(context);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ForbiddenException);
    expect((thrown as ForbiddenException).getResponse()).toEqual({
      statusCode: 403,
      message: 'this route needs the admin role; otto is an operator',
      required_role: 'admin',
    });
    request.headers.authorization = `Bearer ${SECOND_ADMIN}`;
    expect(await guard.canActivate(context)).toBe(true);
  });

  it('batch answers: 200 all created, 207 some refused, 422 all refused', async () => {
    const ok = await as(OPERATOR, '/api/mappings', {
      method: 'POST',
      json: {
        items: [
          { crm: 'appointment', appointment_id: 'BA-1', project_id: '3001' },
          { crm: 'appointment', appointment_id: 'BA-2', project_id: '3002' },
        ],
      },
    });
    expect(ok.status).toBe(200);
    expect(await json(ok)).toMatchObject({ created: 2, errors: 0 });
    const some = await as(OPERATOR, '/api/mappings', {
      method: 'POST',
      json: {
        items: [
          { crm: 'appointment', appointment_id: 'BA-1', project_id: '3003' },
          { crm: 'appointment', appointment_id: 'BA-3', project_id: '3004' },
        ],
      },
    });
    expect(some.status).toBe(207);
    const someBody = await json(some);
    expect(someBody).toMatchObject({ created: 1, errors: 1 });
    expect(someBody.items.map((i: Json) => i.status)).toEqual(['error', 'created']);
    const none = await as(OPERATOR, '/api/mappings', {
      method: 'POST',
      json: {
        items: [
          { crm: 'appointment', appointment_id: 'BA-1', project_id: '3005' },
          { crm: 'appointment', appointment_id: 'x', project_id: 'nope' },
        ],
      },
    });
    expect(none.status).toBe(422);
    const noneBody = await json(none);
    expect(noneBody).toMatchObject({ created: 0, errors: 2 });
    expect(noneBody.items[0].existing.appointment_id).toBe('BA-1');
    const writes = await entries(`kind = 'admin_write' AND detail LIKE '%in a batch%'`);
    expect(writes.map((w) => [w.actor, w.detail])).toEqual([
      ['otto', '2 mapping(s) created in a batch of 2 by otto'],
      ['otto', '1 mapping(s) created in a batch of 2 by otto'],
    ]);
  });
});

describe('roles: the send action of the drawing page', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 5, appointmentCrm: true, env: { ADMIN_TOKENS } });
  });
  afterAll(() => h.close());

  const send = (token: string, body: unknown) =>
    fetch(`${h.url}/api/appointment-crm/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('an operator sends; the sale and the Sold that follows it carry the actor', async () => {
    const project = h.service.addProject();
    const drawing = h.service.addDrawing(project.id);
    h.appointmentCrm!.addAppointment('90071992547409951');
    await mapAppointment(h, project.id, '90071992547409951');
    expect((await send(VIEWER, { project_id: project.id, drawing_id: drawing.id })).status).toBe(403);
    expect((await send(OPERATOR, { project_id: project.id, drawing_id: drawing.id })).status).toBe(202);
    const entries = await settled(h, project.id, ['push_line_items', 'set_status']);
    expect(entries.map((e) => [e.kind, e.status, e.trigger, e.actor])).toEqual([
      ['push_line_items', 'succeeded', 'admin', 'otto'],
      ['set_status', 'succeeded', 'admin', 'otto'],
    ]);
  });
});

describe('ADMIN_TOKENS validation', () => {
  const base = { SERVICE_API_BASE_URL: 'https://api.example.com/v1', SERVICE_API_TOKEN: 't', WEBHOOK_SECRETS_EVENTS: 's', ADMIN_TOKEN };
  const problems = (value: string): string[] => {
    try {
      loadConfig({ ...base, ADMIN_TOKENS: value });
      return [];
    } catch (err) {
      return (err as ConfigError).problems.map((p) => `${p.variable} ${p.reason}`);
    }
  };

  it('parses good entries, ADMIN_TOKEN first as admin', () => {
    const config = loadConfig({ ...base, ADMIN_TOKENS });
    expect(config.adminTokens.map((t) => [t.name, t.role])).toEqual([
      ['admin', 'admin'],
      ['vera', 'viewer'],
      ['otto', 'operator'],
      ['ada', 'admin'],
    ]);
    expect(loadConfig(base).adminTokens.map((t) => t.name)).toEqual(['admin']);
  });

  it('refuses bad entries without printing a token', () => {
    const secret = 'short-secret';
    const bad = problems(`a:viewer:${secret},b:root:${OPERATOR},a:viewer:${VIEWER},admin:viewer:${SECOND_ADMIN},nocolons,c d:viewer:another-token-0123456789`);
    expect(bad).toEqual([
      'ADMIN_TOKENS entry 1 (a): the token must be at least 16 characters',
      'ADMIN_TOKENS entry 2 (b): the role must be viewer, operator or admin',
      'ADMIN_TOKENS entry 3: the name a is used twice',
      'ADMIN_TOKENS entry 4: the name admin is used twice (admin is ADMIN_TOKEN)',
      'ADMIN_TOKENS entry 5 must be name:role:token',
      'ADMIN_TOKENS entry 6: the name must be 1 to 64 letters, digits, dashes or underscores',
    ]);
    for (const line of bad) for (const token of [secret, OPERATOR, VIEWER, SECOND_ADMIN]) expect(line).not.toContain(token);
    expect(adminTokensProblems(ADMIN_TOKENS)).toEqual([]);
    expect(problems(`x:viewer:${ADMIN_TOKEN},y:viewer:${VIEWER},z:operator:${VIEWER}`)).toEqual([
      "ADMIN_TOKENS entry 1 (x): the token is the same as ADMIN_TOKEN's; each name needs its own",
      "ADMIN_TOKENS entry 3 (z): the token is the same as y's; each name needs its own",
    ]);
  });
});
