export function startHttpMcpServer(): Promise<{ url: string; close: () => Promise<void> }>;
