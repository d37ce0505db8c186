import { randomBytes } from 'node:crypto';
import { migrate, openPostgres } from '@forms/worker';
import 'vitest';
import type { TestProject } from 'vitest/node';
import { adminQuery, databaseUrl } from './crm-database.ts';

/**
 * Vitest global setup of the postgres tier: when DATABASE_URL names a PostgreSQL, one database migrated
 * once, which every test file copies (`CREATE DATABASE … TEMPLATE`) instead of migrating its own; dropped
 * at the end. Without DATABASE_URL the tier uses PGlite and this does nothing.
 */
export default async function setup(project: TestProject) {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) return;
  const name = `forms_template_${randomBytes(6).toString('hex')}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  const db = openPostgres(databaseUrl(adminUrl, name));
  try {
    await migrate(db);
  } finally {
    await db.close();
  }
  project.provide('postgresTemplate', name);
  return async () => {
    await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgresTemplate: string | undefined;
  }
}
