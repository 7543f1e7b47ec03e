import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { closeHttpServer } from '@pylon/kit';
import { listenHttp } from '@pylon/kit/serving';

/** kit's listenHttp: listens, then writes the compile cache. */
export const listen = (app: Express, port: number, host: string): Promise<Server> => listenHttp(app, port, host);

/** The base URL a listening server answers at (a wildcard address answers as localhost). */
export function urlOf(s: Server): string {
  const a = s.address() as AddressInfo;
  const host = a.address === '0.0.0.0' || a.address === '::' ? 'localhost' : a.address.includes(':') ? `[${a.address}]` : a.address;
  return `http://${host}:${a.port}`;
}

/** Stops accepting, closes idle keep-alive connections, lets requests in flight finish for up to 5 s (kit closeHttpServer). */
export const closeServer = (s: Server) => closeHttpServer(s);
