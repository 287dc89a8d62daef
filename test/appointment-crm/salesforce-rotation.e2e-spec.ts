import { SalesforceSim } from '../../sim/salesforce/index.js';
import { SelectedAppointmentCrm } from '../../src/appointment-crm/selected-appointment-crm.js';
import { dropDatabase } from '../../src/database/ensure-database.js';
import { fastRetries, startHarness, uniqueDatabaseUrl, type Harness } from '../support/harness.js';

const APPOINTMENT = 'i360__Appointment__c';

/**
 * An org whose Connected App rotates refresh tokens, connected in the environment (APPOINTMENT_CRM_REFRESH_TOKEN) and
 * read by two replicas (in-process apps on one database): every session end makes one refresh across both replicas,
 * whose new refresh token every replica presents next; the environment's token, invalid after the first rotation, is
 * never presented again (presenting it would revoke the consent), not even after every replica restarts.
 */
describe('Salesforce refresh-token rotation across replicas', () => {
  const sim = new SalesforceSim();
  const databaseUrl = uniqueDatabaseUrl();
  let replicas: Harness[] = [];

  const start = async () => {
    // Replicas of one deployment share the queue prefix, under which they share state in Redis.
    const env = { ...sim.envFor(), AUTOMATION_POLL_SECONDS: '0', QUEUE_PREFIX: `crm-sync-test-${process.pid}-${Date.now()}` };
    // The first creates and migrates the database; the second joins it.
    const first = await startHarness({ redisDb: 10, env, databaseUrl, tune: fastRetries });
    replicas = [first, await startHarness({ redisDb: 10, env, databaseUrl, tune: fastRetries })];
  };
  const stopAll = async () => {
    await Promise.all(replicas.map((r) => r.close()));
    replicas = [];
  };

  beforeAll(async () => {
    await sim.start();
    sim.oauth.rotateRefreshTokens = true;
    await start();
  });
  afterAll(async () => {
    await stopAll();
    await sim.stop();
    await dropDatabase(databaseUrl).catch(() => undefined);
  });

  /** Each replica reads the org's changes at once (a session ended meanwhile makes both want a new token together). */
  const readOnEveryReplica = () => Promise.all(replicas.map((r) => r.app.get(SelectedAppointmentCrm).listChangedAppointments(null, null, 50)));

  it('survives five refreshes, each one rotation for both replicas, and a restart of every replica', async () => {
    const prospect = sim.insertRow('i360__Prospect__c', { Name: 'Rio Tate', i360__Primary_Last_Name__c: 'Tate' });
    const appointment = sim.insertRow(APPOINTMENT, { i360__Prospect__c: prospect });

    for (let round = 1; round <= 5; round++) {
      sim.expireTokens();
      const pages = await readOnEveryReplica();
      for (const page of pages) expect(page.items.map((a) => a.id)).toContain(appointment);
      // One refresh for both replicas, each rotating the token once.
      expect(sim.oauth.rotations).toBe(round);
    }
    expect(sim.oauth.isLive(sim.refreshToken)).toBe(false);

    await stopAll();
    await start();
    sim.expireTokens();
    const pages = await readOnEveryReplica();
    for (const page of pages) expect(page.items.map((a) => a.id)).toContain(appointment);
    expect(sim.oauth.rotations).toBe(6);
    // No replica ever presented a token a rotation had replaced (which revokes the consent).
    expect(sim.oauth.reusedRefreshTokens).toBe(0);

    // What every replica shares is kept sealed: neither token is in the row in the clear.
    const [row] = await replicas[0].database.query<Array<{ sealed: string; rotations: number }>>(`SELECT sealed, rotations FROM salesforce_session`);
    expect(row.rotations).toBe(6);
    expect(row.sealed).not.toContain('5Aep861');
    expect(row.sealed).not.toContain(sim.orgId.slice(0, 15));
  });
});
