import { runCommand } from './run-command.ts';

export type ImageConfig = {
  id: string;
  /** Bytes, as the image store counts them (all layers, uncompressed). */
  size: number;
  user: string;
  workingDir: string;
  /** NAME=value entries. */
  env: string[];
  entrypoint: string[];
  cmd: string[];
  /** Docker's form: ['CMD', …] or ['CMD-SHELL', '…']; none when the image declares no HEALTHCHECK. */
  healthcheck: string[] | undefined;
  labels: Record<string, string>;
};

/** What an image says about how to run it (`buildah inspect`), or undefined when there is no such image. */
export async function inspectImage(name: string): Promise<ImageConfig | undefined> {
  const exists = await runCommand('buildah', ['images', '--quiet', name]).catch(() => '');
  if (!exists.trim()) return undefined;
  const raw = JSON.parse(await runCommand('buildah', ['inspect', '--type', 'image', name]));
  // The Docker-format config carries HEALTHCHECK; the OCI one has no field for it.
  const config = raw.Docker?.config ?? raw.OCIv1?.config ?? {};
  const size = Number((await runCommand('podman', ['image', 'inspect', '--format', '{{.Size}}', name])).trim());
  return {
    id: raw.FromImageID as string,
    size,
    user: config.User ?? '',
    workingDir: config.WorkingDir ?? '',
    env: config.Env ?? [],
    entrypoint: config.Entrypoint ?? [],
    cmd: config.Cmd ?? [],
    healthcheck: config.Healthcheck?.Test,
    labels: config.Labels ?? {},
  };
}
