import { excerptOf } from './outbound-error.js';
import { redactSecrets, redactUrl } from './redact.js';

describe(redactSecrets.name, () => {
  it('takes query strings of URLs, Authorization values and token fields out of quoted text', () => {
    const answer =
      '{"error":"expired","url":"https://files.example.com/p/1.pdf?X-Amz-Signature=abc123&X-Amz-Credential=key","access_token":"1000.secret","hint":"send Authorization: Bearer eyJhbGci.x.y"}';
    const redacted = redactSecrets(answer);
    for (const secret of ['abc123', 'X-Amz-Credential', '1000.secret', 'eyJhbGci']) expect(redacted).not.toContain(secret);
    expect(redacted).toContain('https://files.example.com/p/1.pdf?…');
    expect(redacted).toContain('"error":"expired"');
    expect(redactSecrets('bad Bearer eyJhbGci.x.y here')).toBe('bad Bearer … here');
  });

  it('applies to every excerpt of an answer', () => {
    expect(excerptOf('refused token=s3cr3t for https://x.example/a?sig=s3cr3t')).toBe('refused token=… for https://x.example/a?…');
  });

  it('leaves a URL without a query string as it is', () => {
    expect(redactSecrets('see https://x.example/a/b.pdf now')).toBe('see https://x.example/a/b.pdf now');
    expect(redactUrl('https://x.example/a?sig=1')).toBe('https://x.example/a?…');
  });
});
