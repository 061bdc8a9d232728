import { addressKeyOf } from '../src';

describe('addressKeyOf: the key a limit per client address counts under', () => {
  it('keeps an IPv4 address, and an IPv4-mapped IPv6 address as its IPv4', () => {
    expect(addressKeyOf('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKeyOf('::ffff:192.0.2.9')).toBe('192.0.2.9');
  });

  it('counts an IPv6 address by its /64, however it is written', () => {
    const key = '2001:db8:1:2::/64';
    for (const address of [
      '2001:db8:1:2::a',
      '2001:db8:1:2:0:0:0:b',
      '2001:DB8:1:2:ffff::c',
      '2001:0db8:0001:0002::1',
    ])
      expect(addressKeyOf(address)).toBe(key);
    expect(addressKeyOf('2001:db8:1:3::1')).not.toBe(key);
    expect(addressKeyOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKeyOf('::1')).toBe('0:0:0:0::/64');
    expect(addressKeyOf('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
    expect(addressKeyOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  it('puts what is no address under one key', () => {
    expect(addressKeyOf(undefined)).toBe('unknown');
    expect(addressKeyOf('')).toBe('unknown');
    expect(addressKeyOf('not-an-address')).toBe('unknown');
  });
});
