import { request } from 'node:http';

export interface SentResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * Sends a request with full control of method, path and headers (fetch forbids Host and Sec-Fetch-*)
 * and resolves with its status, headers and body; an event stream is cut once its headers arrive.
 */
export function send(url: string, method: string, headers: Record<string, string> = {}, body?: string | Buffer): Promise<SentResponse> {
  return new Promise((resolve, reject) => {
    // Node frames a GET's body only when told its length: without it the bytes would read as a next request.
    const framed = body === undefined ? headers : { 'content-length': String(Buffer.byteLength(body)), ...headers };
    const req = request(url, { method, headers: framed }, (res) => {
      if (String(res.headers['content-type']).startsWith('text/event-stream')) {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
        req.destroy();
        return;
      }
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
