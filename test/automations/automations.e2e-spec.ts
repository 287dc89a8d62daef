import { AutomationPollerService } from '../../src/automations/automation-poller.service.js';
import { loadConfig } from '../../src/config/app-config.js';
import { allActionsFinished, mapAppointment } from '../support/appointment-crm.js';
import { readChangesNow } from '../support/automations.js';
import { startHarness, waitFor, type Harness } from '../support/harness.js';

type Json = Record<string, any>;
const json = async (res: Response): Promise<Json> => (await res.json()) as Json;

const OWNER = 'owner@example.com';
const REP = 'estimator@example.com';

describe('automations: a project for each qualifying appointment, once', () => {
  let h: Harness;
  let seq = 0;
  beforeAll(async () => {
    h = await startHarness({
      redisDb: 12,
      appointmentCrm: true,
      env: { AUTOMATION_POLL_SECONDS: '0' },
      // The association waits 100 ms rather than 1 s for more mappings to join it (each read waits for it); the test
      // of its gathering puts the daemon's 1 s back.
      tune: (c) => (c.automationAssociateGatherMs = 100),
    });
    // Creation stays off: the first test turns it on.
    const res = await h.admin('/api/automations/appointment-crm', { method: 'PUT', json: { statuses: ['Sold'], owner: OWNER } });
    expect(res.status).toBe(200);
  });
  afterAll(() => h.close());

  const crm = () => h.appointmentCrm!;
  const nextId = () => `${9007199254740993n + BigInt(++seq)}`;
  const setAutomation = async (body: Json) => expect((await h.admin('/api/automations/appointment-crm', { method: 'PUT', json: body })).status).toBe(200);

  const read = () => readChangesNow(h, 'appointment-crm');
  const projectsNamed = (part: string) => [...h.service.projects.values()].filter((p) => p.name.includes(part));
  const entriesFor = (appointmentId: string) =>
    h.database.query<Json[]>(
      `SELECT id::text, status, trigger, detail, error, project_id FROM sync_log WHERE kind = 'create_project' AND target = $1 ORDER BY id`,
      [appointmentId],
    );
  const mappingOf = async (appointmentId: string) =>
    json(await h.admin(`/api/mappings?crm=appointment`)).then((b) => b.items.find((m: Json) => m.appointment_id === appointmentId));

  const automation = async (): Promise<Json> => (await json(await h.admin('/api/automations'))).appointment_crm;

  it('starts the first read at the moment creation is turned on; a start_from in the past reads the older changes', async () => {
    const before = nextId();
    crm().addAppointment(before, { status: 'Sold', customer: { name: 'Historic' }, updated_at: new Date(Date.now() - 60_000).toISOString() } as never);
    expect((await automation()).cursor).toBeNull();
    const turnedOnAt = Date.now();
    await setAutomation({ create_projects: true });
    const on = await automation();
    expect(on.start_from).toBeNull();
    expect(Date.parse(on.cursor)).toBeGreaterThanOrEqual(turnedOnAt - 1_000);
    const after = nextId();
    crm().addAppointment(after, { status: 'Sold', customer: { name: 'Newcomer' } } as never);
    await read();
    expect(projectsNamed(`(${before})`)).toHaveLength(0);
    expect(projectsNamed(`(${after})`)).toHaveLength(1);

    const startFrom = new Date(Date.now() - 3_600_000).toISOString();
    await setAutomation({ start_from: startFrom });
    const history = await automation();
    expect(history).toMatchObject({ start_from: startFrom, cursor: startFrom });
    await read();
    expect(projectsNamed(`(${before})`)).toHaveLength(1);
    expect(projectsNamed(`(${after})`)).toHaveLength(1);
    // GET's answer sent back (as a console would) sets no start again: the start is taken once.
    const readTo = (await automation()).cursor;
    expect(readTo).not.toBe(startFrom);
    await setAutomation({ ...(await automation()) });
    expect((await automation()).cursor).toBe(readTo);
  });

  it('a start saved while a read is under way wins: that read stops at its page, the next one starts there', async () => {
    const listings = () => crm().requests.filter((r) => r.method === 'GET' && r.path === '/appointments').length;
    const before = listings();
    crm().injectFault({ method: 'GET', path: '/appointments', times: 1, delayMs: 1_500 });
    const reading = h.app.get(AutomationPollerService).poll('appointment');
    await waitFor(() => listings() > before, 5_000, 'the read to ask for its page');
    const startFrom = new Date(Date.now() - 120_000).toISOString();
    await setAutomation({ start_from: startFrom });
    expect(await reading).toMatchObject({ state: 'read', pages: 1, more: true });
    expect((await automation()).cursor).toBe(startFrom);
    await read();
    expect(
      crm()
        .requests.filter((r) => r.path === '/appointments')
        .at(-1)!
        .query.get('updated_since'),
    ).toBe(startFrom);
  });

  it('creates the project with what the appointment says, maps it (source automation) and associates it by A2', async () => {
    const sold = nextId();
    const other = nextId();
    const scheduled = nextId();
    crm().addAppointment(sold, {
      status: 'Sold',
      job_number: 'J-100',
      customer: {
        name: 'Jane Roe',
        email: 'jane@example.com',
        phone: '555-0100',
        address: { street: '1 Main St', city: 'Springfield', state: 'IL', zip_code: '62701' },
      },
      sales_rep: { name: 'Sam Rep', email: 'sam@example.com', phone: null },
    } as never);
    crm().addAppointment(other, { status: 'sold', customer: { name: 'Ann Other' } } as never);
    crm().addAppointment(scheduled, { status: 'Scheduled', customer: { name: 'Not Yet' } } as never);
    const a2Before = h.service.calls.a2;
    const projectCalls = (path: string) => h.service.requestsTo('POST', path).length;
    const [p2Before, p5Before] = [projectCalls('/v1/projects'), projectCalls('/v1/projects/search')];

    const gatherMs = h.config.automationAssociateGatherMs;
    h.config.automationAssociateGatherMs = loadConfig({}).automationAssociateGatherMs;
    let run: Json;
    try {
      run = await read();
    } finally {
      h.config.automationAssociateGatherMs = gatherMs;
    }
    expect(run).toMatchObject({ kind: 'poll_changes', trigger: 'admin', status: 'succeeded' });
    expect(run.detail).toMatch(/2 project\(s\) to create/);

    const [project] = projectsNamed(`(${sold})`);
    expect(project).toMatchObject({
      name: `Jane Roe (${sold})`,
      job_number: 'J-100',
      customer: {
        name: 'Jane Roe',
        email: 'jane@example.com',
        phone: '555-0100',
        address: { street: '1 Main St', city: 'Springfield', state: 'IL', zip_code: '62701' },
      },
      work_site_address: { street: '1 Main St', city: 'Springfield', state: 'IL', zip_code: '62701' },
      sales_rep: { name: 'Sam Rep', email: 'sam@example.com' },
      tags: ['crm-sync'],
    });
    expect(h.service.projectOwners.get(project.id)).toBe(OWNER);
    expect(projectsNamed(`(${other})`)).toHaveLength(1);
    expect(projectsNamed(`(${scheduled})`)).toHaveLength(0);
    // A first run creates at once: one P2 per project, no P5.
    expect([projectCalls('/v1/projects') - p2Before, projectCalls('/v1/projects/search') - p5Before]).toEqual([2, 0]);

    await waitFor(() => h.service.appointmentAssociations.get(project.id) === sold, 10_000, 'the association');
    expect(h.service.calls.a2 - a2Before).toBe(1); // both mappings in one A2 call
    expect(await mappingOf(sold)).toMatchObject({ project_id: project.id, source: 'automation', status: 'associated' });
    const [entry] = await entriesFor(sold);
    expect(entry).toMatchObject({ status: 'succeeded', trigger: 'automation', project_id: project.id });
    expect(entry.detail).toContain(`project ${project.id}`);
    expect(entry.detail).toContain(`owner ${OWNER}`);
    expect((await json(await h.admin('/api/automations'))).appointment_crm).toMatchObject({
      last_error: null,
      cursor: expect.any(String),
      last_run_at: expect.any(String),
    });
  });

  it('never makes a second project: not on later reads, not for a record edited ten times, not for one that stops qualifying', async () => {
    const id = nextId();
    crm().addAppointment(id, { status: 'Sold', customer: { name: 'Edited Often' } } as never);
    await read();
    expect(projectsNamed(`(${id})`)).toHaveLength(1);
    for (let i = 0; i < 10; i++) crm().editAppointment(id, { customer: { name: `Edited ${i}` } } as never, new Date(Date.now() + i));
    await read();
    await read();
    crm().editAppointment(id, { status: 'Cancelled' } as never);
    crm().appointments.delete(id);
    await read();
    expect(projectsNamed(`(${id})`)).toHaveLength(1);
    expect(await entriesFor(id)).toHaveLength(1);
    expect(await mappingOf(id)).toMatchObject({ source: 'automation' });
  });

  it('gives no project to an appointment mapped already, by hand', async () => {
    const id = nextId();
    const manual = h.service.addProject({ name: `Manual ${id}` });
    await mapAppointment(h, manual.id, id);
    crm().addAppointment(id, { status: 'Sold', customer: { name: 'By Hand' } } as never);
    await read();
    expect(projectsNamed(`(${id})`)).toHaveLength(0);
    expect(await entriesFor(id)).toHaveLength(0);
  });

  it('makes the sales rep the owner when allowed, and falls back to the default owner when the service refuses the rep', async () => {
    await setAutomation({ owner_from_sales_rep: true });
    try {
      const member = nextId();
      const stranger = nextId();
      crm().addAppointment(member, { status: 'Sold', customer: { name: 'Rep Member' }, sales_rep: { name: 'Est', email: REP } } as never);
      crm().addAppointment(stranger, {
        status: 'Sold',
        customer: { name: 'Rep Stranger' },
        sales_rep: { name: 'New Hire', email: 'new.hire@example.com' },
      } as never);
      await read();
      expect(h.service.projectOwners.get(projectsNamed(`(${member})`)[0].id)).toBe(REP);
      const [fallback] = projectsNamed(`(${stranger})`);
      expect(h.service.projectOwners.get(fallback.id)).toBe(OWNER);
      const [entry] = await entriesFor(stranger);
      expect(entry.status).toBe('succeeded');
      expect(entry.detail).toMatch(/sales rep was refused as owner.*default owner was used/);
    } finally {
      await setAutomation({ owner_from_sales_rep: false });
    }
  });

  it('cleans names to the service rules: no : / \\, no leading dot, at most 200 characters, emoji whole; NFKC, no control, format or bidi characters', async () => {
    const cases = [
      { name: 'Smith: kitchen/bath\\rear', expected: (id: string) => `Smith kitchen bath rear (${id})` },
      { name: '.hidden Co', expected: (id: string) => `hidden Co (${id})` },
      { name: 'L'.repeat(300), expected: (id: string) => `${'L'.repeat(200 - id.length - 3)} (${id})` },
      { name: 'Casa 🏡 Feliz', expected: (id: string) => `Casa 🏡 Feliz (${id})` },
      // A right-to-left override would show "Evil exe.pdf Co" reversed; zero-width and control characters make two names look alike.
      { name: 'Evil\u202Efdp.exe\u202C Co', expected: (id: string) => `Evil fdp.exe Co (${id})` },
      { name: 'Zero\u200Bwidth\u2060Ltd\u0007\uFEFF', expected: (id: string) => `Zero width Ltd (${id})` },
      { name: '\uFF21\uFF22\uFF23 \uFF32oofing \uFB01ne', expected: (id: string) => `ABC Roofing fine (${id})` },
      { name: 'The 👩\u200D👩\u200D👧 Family', expected: (id: string) => `The 👩\u200D👩\u200D👧 Family (${id})` },
    ];
    const ids = cases.map((c) => {
      const id = nextId();
      crm().addAppointment(id, { status: 'Sold', customer: { name: c.name } } as never);
      return id;
    });
    await read();
    cases.forEach((c, i) => {
      const [project] = projectsNamed(`(${ids[i]})`);
      expect(project?.name).toBe(c.expected(ids[i]));
      expect(project.name.length).toBeLessThanOrEqual(200);
    });
  });

  it('finds the project by its name when P2 created it but its answer was lost, and creates no second one', async () => {
    const id = nextId();
    crm().addAppointment(id, { status: 'Sold', customer: { name: 'Lost Answer' } } as never);
    // Applied, then the connection dropped, on every inline try: the entry fails this run and is retried.
    h.service.injectFault({ method: 'POST', path: '/v1/projects', times: 3, afterHandling: true, dropConnection: true });
    await read();
    expect(projectsNamed(`(${id})`)).toHaveLength(1);
    const [entry] = await entriesFor(id);
    expect(entry.status).toBe('succeeded');
    expect(entry.detail).toContain('found by its name');
    expect(await mappingOf(id)).toMatchObject({ project_id: projectsNamed(`(${id})`)[0].id, source: 'automation' });
  });

  it("adopts a project found by its name only when it is crm-sync's: made by hand, or tagged but older than the entry, the entry fails naming the clash", async () => {
    const byHand = nextId();
    const taggedOld = nextId();
    // Someone made projects with the exact names the automation gives (P2 then answers "name taken", P5 finds them).
    const handMade = h.service.addProject({ name: `By Hand Clash (${byHand})` });
    const old = h.service.addProject({
      name: `Tagged Old (${taggedOld})`,
      tags: ['crm-sync'],
      created_at: new Date(Date.now() - 3_600_000).toISOString().slice(0, 19),
    });
    crm().addAppointment(byHand, { status: 'Sold', customer: { name: 'By Hand Clash' } } as never);
    crm().addAppointment(taggedOld, { status: 'Sold', customer: { name: 'Tagged Old' } } as never);
    await read();
    const [hand] = await entriesFor(byHand);
    expect(hand.status).toBe('failed');
    expect(hand.error).toContain(`project "By Hand Clash (${byHand})" (${handMade.id}) exists on the service but is not crm-sync's: it has no "crm-sync" tag`);
    const [tagged] = await entriesFor(taggedOld);
    expect(tagged.status).toBe('failed');
    expect(tagged.error).toMatch(/it was created at .*, before this entry was recorded/);
    expect(tagged.error).not.toContain('tag');
    expect(await mappingOf(byHand)).toBeUndefined();
    expect(await mappingOf(taggedOld)).toBeUndefined();
    expect(projectsNamed(`(${byHand})`)).toEqual([handMade]);
    expect(projectsNamed(`(${taggedOld})`)).toEqual([old]);
  });

  it('reads nothing while creation is off; on again, it goes on from where it was, so what changed meanwhile is read once', async () => {
    const readTo = (await automation()).cursor;
    await setAutomation({ create_projects: false });
    const id = nextId();
    crm().addAppointment(id, { status: 'Sold', customer: { name: 'While Off' } } as never);
    const listings = crm().requests.length;
    const off = await read();
    expect(off).toMatchObject({ status: 'skipped', detail: expect.stringContaining('off') });
    expect(crm().requests.length).toBe(listings);
    expect(projectsNamed(`(${id})`)).toHaveLength(0);
    await setAutomation({ create_projects: true });
    // The CRM was read before: turning creation on again keeps its position (only a first switch-on starts now).
    expect((await automation()).cursor).toBe(readTo);
    await read();
    expect(projectsNamed(`(${id})`)).toHaveLength(1);
    await read();
    expect(await entriesFor(id)).toHaveLength(1);
  });

  it('two replicas reading at once record one entry and make one project per appointment', async () => {
    // The same database, queues, service and CRM: a second replica of the first.
    const second = await startHarness({
      redisDb: 12,
      databaseUrl: h.databaseUrl,
      env: {
        AUTOMATION_POLL_SECONDS: '0',
        QUEUE_PREFIX: h.config.queuePrefix,
        ...h.service.daemonEnv(),
        ...crm().daemonEnv(),
      },
    });
    try {
      const ids = Array.from({ length: 30 }, () => nextId());
      for (const id of ids) crm().addAppointment(id, { status: 'Sold', customer: { name: `Twin ${id}` } } as never);
      const listings = () => crm().requests.filter((r) => r.method === 'GET' && r.path === '/appointments').length;
      const before = listings();
      const outcomes = await Promise.all([h.app.get(AutomationPollerService).poll('appointment'), second.app.get(AutomationPollerService).poll('appointment')]);
      // Whichever came second found the other reading (busy) or read after it, from where it ended.
      expect(outcomes.some((o) => o.state === 'read' && o.created === ids.length)).toBe(true);
      expect(listings() - before).toBeLessThanOrEqual(2);
      await allActionsFinished(h);
      for (const id of ids) {
        expect(projectsNamed(`(${id})`)).toHaveLength(1);
        expect(await entriesFor(id)).toHaveLength(1);
      }
    } finally {
      await second.close();
    }
  });
});
