import { describe, expect, it } from 'vitest';
import { normalizeToolPolicy } from '../../tool/policy.js';
import { policyRequiresApproval } from './policy.js';

const p = normalizeToolPolicy;

describe('policyRequiresApproval', () => {
  it('asks for medium, high and critical risk in ask and risk modes, never in full', () => {
    for (const riskLevel of ['medium', 'high', 'critical'] as const) {
      expect(policyRequiresApproval(p({ riskLevel }), 'risk')).toBe(true);
      expect(policyRequiresApproval(p({ riskLevel }), 'ask')).toBe(true);
      expect(policyRequiresApproval(p({ riskLevel }), 'full')).toBe(false);
    }
    expect(policyRequiresApproval(p({ riskLevel: 'low' }), 'risk')).toBe(false);
  });

  it('ask mode also asks for low-risk tools with approval scopes', () => {
    const scoped = p({ riskLevel: 'low', approvalScopes: ['filesystem'] });
    expect(policyRequiresApproval(scoped, 'ask')).toBe(true);
    expect(policyRequiresApproval(scoped, 'risk')).toBe(false);
  });

  it('exempt and read-only public-network tools never ask', () => {
    expect(
      policyRequiresApproval(
        p({ riskLevel: 'critical', approvalExempt: true, requiresApproval: true }),
        'ask',
      ),
    ).toBe(false);
    expect(
      policyRequiresApproval(p({ riskLevel: 'medium', approvalScopes: ['public_network'] }), 'ask'),
    ).toBe(false);
    expect(
      policyRequiresApproval(
        p({ riskLevel: 'medium', approvalScopes: ['public_network'], sideEffects: ['upload'] }),
        'risk',
      ),
    ).toBe(true);
  });

  it('requiresApproval decides explicitly, and true survives full mode', () => {
    expect(policyRequiresApproval(p({ riskLevel: 'low', requiresApproval: true }), 'full')).toBe(
      true,
    );
    expect(
      policyRequiresApproval(p({ riskLevel: 'critical', requiresApproval: false }), 'ask'),
    ).toBe(false);
  });

  it('normalises policies and rejects bad ones', () => {
    expect(p({ riskLevel: 'HIGH' as never })).toMatchObject({
      riskLevel: 'high',
      sideEffects: [],
      approvalExempt: false,
    });
    expect(() => p({ riskLevel: 'extreme' as never })).toThrowError(/riskLevel/);
    expect(() => p({ sideEffects: [''] })).toThrowError(/sideEffects/);
  });
});
