import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * What a bearer token may be made of (RFC 6750 `b64token`, bounded): the only tokens the
 * `Authorization` parsing can ever match, so the configured admin token is held to it too.
 */
export const BEARER_TOKEN_RE = /^[A-Za-z0-9_\-.~+/=]{16,256}$/;
export const BEARER_TOKEN_CHARACTERS = 'letters, digits and - . _ ~ + / =';

/** sha256 hex of a token: map and ACL keys are looked up by this value, never stored in clear. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time comparison of two strings (of any length). */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

/** A random API token: `<prefix>_` + 32 random bytes in base64url. */
export function generateToken(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/** AES-256-GCM for secrets that must be shown again (ACL keys, webhook secrets). */
export class SecretBox {
  private readonly key: Buffer;

  constructor(keyBase64: string) {
    this.key = Buffer.from(keyBase64, 'base64');
    if (this.key.length !== 32) throw new Error('encryption key must be 32 bytes');
  }

  static generateKey(): string {
    return randomBytes(32).toString('base64');
  }

  /** Output: `v1.<iv>.<tag>.<ciphertext>`, each base64url. */
  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
  }

  decrypt(box: string): string {
    const [version, iv, tag, data] = box.split('.');
    if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('unknown secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}
