/**
 * deploy/README.md's edge settings, read from the file itself: the REGION_HOSTS it documents must load and
 * route as it says (a Worker deployed as written once answered 500 on every call).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { regionForHost } from '../src/regions/region-routing.js';

const README = readFileSync(path.resolve(import.meta.dirname, '../../deploy/README.md'), 'utf8');

describe('deploy/README.md, verbatim', () => {
  it('documents a REGION_HOSTS that the edge loads and routes by', () => {
    const line = README.split('\n').find((l) => /REGION_HOSTS = '/.test(l));
    expect(line).toBeDefined();
    const value = /REGION_HOSTS = '([^']+)'/.exec(line!)![1]!;
    const documented = JSON.parse(value) as Record<string, string>;
    const config = loadConfig({ REGION_HOSTS: value } as never);
    expect(Object.keys(documented).length).toBeGreaterThan(0);
    for (const [host, region] of Object.entries(documented)) {
      expect(regionForHost(host, config)).toBe(region);
      expect(regionForHost(`${host.toUpperCase()}:443`, config)).toBe(region);
    }
  });

  it('accepts REGION_HOSTS as region → hosts and as host → region, and refuses anything else', () => {
    const byRegion = loadConfig({ REGION_HOSTS: '{"ap-southeast": ["hk.api.example.com", "sg.api.example.com"]}' } as never);
    const byHost = loadConfig({ REGION_HOSTS: '{"hk.api.example.com": "ap-southeast", "sg.api.example.com": "ap-southeast"}' } as never);
    for (const config of [byRegion, byHost]) {
      expect(regionForHost('sg.api.example.com', config)).toBe('ap-southeast');
      expect(regionForHost('api.example.com', config)).toBe('cn-east');
    }
    expect(() => loadConfig({ REGION_HOSTS: '{"hk.api.example.com": "mars"}' } as never)).toThrow(/REGION_HOSTS must map/);
    expect(() => loadConfig({ REGION_HOSTS: '{"hk.api.example.com": ["ap-southeast"]}' } as never)).toThrow(/REGION_HOSTS must map/);
    expect(() => loadConfig({ REGION_HOSTS: '["hk.api.example.com"]' } as never)).toThrow(/REGION_HOSTS/);
  });
});
