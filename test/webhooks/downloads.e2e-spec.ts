import { deliverEvent, mapAppointment, settled } from '../support/appointment-crm.js';
import { events } from '../../sim/service/index.js';
import { startHarness, type Harness } from '../support/harness.js';

/**
 * Downloads of URLs from payloads as a production deployment makes them (DOWNLOADS_ALLOW_PRIVATE_ADDRESSES unset):
 * the simulators' plain-http addresses on 127.0.0.1 stand for an internal host a signed webhook could point at.
 */
describe('downloads: only https to public addresses', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 4, appointmentCrm: true, env: { DOWNLOADS_ALLOW_PRIVATE_ADDRESSES: 'false' } });
  });
  afterAll(() => h.close());

  async function drawingOnMappedAppointment(appointmentId: string) {
    const project = h.service.addProject();
    const drawing = h.service.addDrawing(project.id);
    h.appointmentCrm!.addAppointment(appointmentId);
    await mapAppointment(h, project.id, appointmentId);
    return { project, drawing };
  }

  it('fails a push at once, naming why, when pdf_url is plain http; nothing is fetched', async () => {
    const appointmentId = '90071992547409931';
    const { project, drawing } = await drawingOnMappedAppointment(appointmentId);
    await deliverEvent(h, events.drawingCreated(h.service.drawingView(drawing.id)));
    const [entry] = await settled(h, project.id, ['push_drawings']);
    expect(entry).toMatchObject({ status: 'failed', attempts: 1 });
    expect(entry.error).toContain('refused: http is not https');
    expect(h.service.requestsTo('GET', new RegExp(`^/files/drawings/${drawing.id}/`))).toHaveLength(0);
    expect(h.appointmentCrm!.fileBytes(appointmentId, 'drawing')).toEqual([]);
  });

  it("refuses an approval's https pdf_url naming loopback, and a link-local literal, before connecting", async () => {
    const { project, drawing } = await drawingOnMappedAppointment('90071992547409932');
    const proposal = h.service.addProposal({ project_id: project.id, status: 'APPROVED', approved_option: { drawing_id: drawing.id } });
    const port = new URL(proposal.pdf_url!).port;
    await deliverEvent(h, events.proposalStatusChanged({ ...proposal, pdf_url: `https://localhost:${port}/files/blobs/x.pdf?signature=s3cr3t` }));
    const [byName] = await settled(h, project.id, ['push_proposal_pdf']);
    expect(byName).toMatchObject({ status: 'failed', attempts: 1 });
    expect(byName.error).not.toContain('s3cr3t');
    expect(byName.error).toMatch(/refused: localhost resolves to (127\.0\.0\.1|::1) is loopback/);

    const other = await drawingOnMappedAppointment('90071992547409933');
    const second = h.service.addProposal({ project_id: other.project.id, status: 'APPROVED', approved_option: { drawing_id: other.drawing.id } });
    await deliverEvent(h, events.proposalStatusChanged({ ...second, pdf_url: 'https://169.254.169.254/latest/meta-data/x.pdf' }));
    const [literal] = await settled(h, other.project.id, ['push_proposal_pdf']);
    expect(literal).toMatchObject({ status: 'failed', attempts: 1 });
    expect(literal.error).toContain('refused: 169.254.169.254 is link-local');
    expect(h.service.requestsTo('GET', /^\/files\//)).toHaveLength(0);
  });
});
