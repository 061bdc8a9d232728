// Which address a request without a verified token is rate-limited by.
import type { IncomingMessage } from 'node:http';
import { clientAddress } from '../src/auth/client-address';

const req = (peer: string, forwardedFor?: string | string[]) =>
  ({
    socket: { remoteAddress: peer },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  }) as unknown as IncomingMessage;

it('is the peer unless a trusted proxy is in front', () => {
  expect(clientAddress(req('10.0.0.7', '203.0.113.9'), false)).toBe('10.0.0.7');
  expect(clientAddress(req('10.0.0.7'), true)).toBe('10.0.0.7');
});

it('behind a trusted proxy is the address that proxy saw, never what the client wrote before it', () => {
  expect(clientAddress(req('10.0.0.7', '203.0.113.9'), true)).toBe('203.0.113.9');
  expect(clientAddress(req('10.0.0.7', '1.2.3.4, 203.0.113.9'), true)).toBe('203.0.113.9');
  expect(clientAddress(req('10.0.0.7', ['1.2.3.4', '198.51.100.3 ']), true)).toBe('198.51.100.3');
  expect(clientAddress(req('10.0.0.7', ''), true)).toBe('10.0.0.7');
});
