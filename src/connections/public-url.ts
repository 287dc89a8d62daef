import type { AppConfig } from '../config/app-config.js';

/** The daemon's own address: PUBLIC_URL, else where it listens on this machine (fine for a first local start). */
export const publicUrlOf = (config: AppConfig): string => config.publicUrl ?? `http://localhost:${config.port}`;
