import path from 'node:path';
import { ConfigError, type Config } from '../common/config.js';
import { readOrCreate } from '../db/embedded.js';
import { SecretBox, generateToken } from '../common/crypto.js';

export interface Secrets {
  /** The admin token in force (configured, or generated for the embedded default). */
  adminToken: string | undefined;
  /** Encrypts ACL keys and webhook secrets at rest. */
  box: SecretBox;
}

/** The embedded default keeps its generated secrets under DATA_DIR; with DATABASE_URL they must be configured. */
export function loadSecrets(config: Config): Secrets {
  if (config.databaseUrl) {
    if (!config.encryptionKey) {
      throw new ConfigError(['SERVICE_ENCRYPTION_KEY is required with DATABASE_URL (every replica must share it): openssl rand -base64 32']);
    }
    return { box: new SecretBox(config.encryptionKey), adminToken: config.adminToken };
  }
  const dir = path.resolve(config.dataDir);
  return {
    box: new SecretBox(config.encryptionKey ?? readOrCreate(path.join(dir, 'encryption.key'), () => SecretBox.generateKey())),
    adminToken: config.adminToken ?? readOrCreate(path.join(dir, 'admin.token'), () => generateToken('adm')),
  };
}
