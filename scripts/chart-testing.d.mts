export const CT_VERSION: string;
export const ctBinary: string;
export const ctConfigDir: string;
export function ensureChartTesting(): string;
