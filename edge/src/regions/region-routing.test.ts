import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { regionForHost, regionOffers } from './region-routing.js';

const config = loadConfig({ REGION_HOSTS: '{"ap-southeast": ["api-hk.example.com"], "cn-east": ["ap-southeast.legacy.example.com"]}' } as never);

describe('region routing', () => {
  it('maps hosts to regions', () => {
    expect(regionForHost('ap-southeast.localhost:8787', config)).toBe('ap-southeast');
    expect(regionForHost('AP-SOUTHEAST.example.com', config)).toBe('ap-southeast');
    expect(regionForHost('cn-east.localhost:8787', config)).toBe('cn-east');
    expect(regionForHost('127.0.0.1:8787', config)).toBe('cn-east');
    expect(regionForHost('localhost', config)).toBe('cn-east');
    expect(regionForHost('somewhere.example.org', config)).toBe('cn-east');
    expect(regionForHost(undefined, config)).toBe('cn-east');
    expect(regionForHost('api-hk.example.com:443', config)).toBe('ap-southeast');
    expect(regionForHost('ap-southeast.legacy.example.com', config)).toBe('cn-east');
  });

  it('offers the catalogue per region unless REGION_SERVICES overrides it', () => {
    expect(regionOffers(config, 'cn-east', '_0000143')).toBe(true);
    expect(regionOffers(config, 'ap-southeast', '_0000143')).toBe(false);
    const narrowed = loadConfig({ REGION_SERVICES: { 'ap-southeast': ['_0000143'] } } as never);
    expect(regionOffers(narrowed, 'ap-southeast', '_0000143')).toBe(true);
    expect(regionOffers(narrowed, 'ap-southeast', '_0000049')).toBe(false);
    expect(regionOffers(narrowed, 'cn-east', '_0000049')).toBe(true);
  });

  it('refuses malformed configuration', () => {
    expect(() => loadConfig({ REGION_SERVICES: '{"mars": []}' } as never)).toThrow(/REGION_SERVICES/);
    expect(() => loadConfig({ BACKEND_TIMEOUT_MS: 'soon' } as never)).toThrow(/BACKEND_TIMEOUT_MS/);
    expect(() => loadConfig({ DEFAULT_GRANTS: 'some' } as never)).toThrow(/DEFAULT_GRANTS/);
  });
});
