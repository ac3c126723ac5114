import { describe, expect, it } from 'vitest';
import { renderRequestChat } from './render-request.js';

const file = '/w/.delta/runs/r1/io/invocations/inv1/request.json';

describe('renderRequestChat on a request file a tool rewrote', () => {
  it('shows JSON that is not an object as such, instead of failing the page', () => {
    for (const text of ['null', '[1,2]', '42', '"text"']) {
      expect(renderRequestChat({ text, file })).toBe('<div class="muted">The request is not a JSON object; see the raw bytes below.</div>');
    }
  });

  it('shows a message that is not an object as one of unknown role', () => {
    const html = renderRequestChat({ text: '{"model":"m","messages":[null,{"role":"user","content":"hi"}]}', file });
    expect(html).toContain('What the model was sent: model m · 2 messages · no tools offered');
    expect(html).toContain('<div class="msg-role">unknown</div>');
    expect(html).toContain('<pre class="msg-text">hi</pre>');
  });

  it('still says when the text is not JSON at all', () => {
    expect(renderRequestChat({ text: '{"model":', file })).toBe(
      '<div class="muted">The request is not JSON; see the raw bytes below.</div>',
    );
  });
});
