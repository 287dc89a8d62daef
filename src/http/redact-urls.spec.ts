import { redactUrlCredentials, redactUrlCredentialsDeep } from './redact-urls.js';

describe(redactUrlCredentials.name, () => {
  it('replaces query strings and userinfo, in plain and in JSON-escaped URLs', () => {
    expect(redactUrlCredentials('https://files.example.com/p/1.pdf?X-Amz-Signature=abc&X-Amz-Credential=k')).toBe('https://files.example.com/p/1.pdf?…');
    expect(redactUrlCredentials('see http://user:pa55@host.example:8443/a/b now')).toBe('see http://…@host.example:8443/a/b now');
    expect(redactUrlCredentials('{"pdf_url":"https:\\/\\/cdn.example\\/d.pdf?sig=s3cr3t#p2","n":36029621652695017123}')).toBe(
      '{"pdf_url":"https:\\/\\/cdn.example\\/d.pdf?…#p2","n":36029621652695017123}',
    );
  });

  it('leaves URLs without credentials and other text byte for byte', () => {
    const text = '{"id":36029621652695017123,"url":"https://x.example/a/b.pdf","mail":"a@b.example","note":"why? because"}';
    expect(redactUrlCredentials(text)).toBe(text);
  });

  it('redacts every string of a parsed value, keeping exact id strings and other values', () => {
    const value = { id: '36029621652695017123', n: 1, ok: true, none: null, drawings: [{ png_url: 'https://x.example/p.png?token=t0k3n' }] };
    expect(redactUrlCredentialsDeep(value)).toEqual({ ...value, drawings: [{ png_url: 'https://x.example/p.png?…' }] });
  });
});
