package io.gpux.client.agent.workload;

import io.gpux.client.workload.WorkloadSpec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * Runs a workload as a Docker container on the lease's GPUs:
 * <pre>
 * docker run -d --name gpux-lease-ID --label gpux.lease=ID --label gpux.agent=MACHINE
 *   --gpus "device=I,J" [--memory M] [--cpus C] [--pids-limit P]
 *   -v LEASE_DIR/notice:/gpux/notice:ro [-v CHECKPOINT_DIR:/gpux/checkpoint]
 *   [-v LEASE_DIR/authorized_keys:/root/.ssh/authorized_keys:ro]
 *   -e NAME=VALUE... -p PORT... IMAGE [COMMAND ARGS...]
 * </pre>
 * Each declared port is published on an ephemeral port of the machine ({@link #endpoints} says
 * which). The renter's SSH key is mounted read-only as root's {@code authorized_keys}; the image
 * runs its own SSH server. Images not on the owner's allow-list are refused before docker runs.
 * Signals go through {@code docker kill --signal}, a kill is {@code docker kill} then
 * {@code docker rm}, logs come from {@code docker logs --tail}, and a restarted agent finds its
 * containers by their {@code gpux.agent} label.
 */
public final class DockerRuntime implements WorkloadRuntime
{
    /** The runtime's name in handles and the state file. */
    public static final String NAME = "docker";
    /** Where the notice directory is mounted in the container. */
    public static final String NOTICE_MOUNT = "/gpux/notice";
    /** Where the checkpoint directory is mounted in the container. */
    public static final String CHECKPOINT_MOUNT = "/gpux/checkpoint";
    /** Where the renter's SSH key is mounted in the container. */
    public static final String AUTHORIZED_KEYS_MOUNT = "/root/.ssh/authorized_keys";

    private static final String CONTAINER_PREFIX = "gpux-lease-";
    private static final long COMMAND_TIMEOUT_MS = 30_000;
    /** Time for {@code docker run}: it may pull the image first. */
    private static final long RUN_TIMEOUT_MS = 30 * 60_000;

    private final DockerConfig config;

    /** @param config what the owner allows and gives containers. */
    public DockerRuntime(final DockerConfig config)
    {
        this.config = config;
    }

    @Override
    public WorkloadSpec.Runtime kind()
    {
        return WorkloadSpec.Runtime.DOCKER;
    }

    /** The name of a lease's container: {@code gpux-lease-ID}. */
    public static String containerName(final long leaseId)
    {
        return CONTAINER_PREFIX + leaseId;
    }

    @Override
    public WorkloadHandle start(final LaunchRequest request) throws WorkloadException
    {
        final WorkloadSpec spec = request.spec();
        if (!config.allows(spec.image()))
        {
            throw new WorkloadException("image " + spec.image() + " is not on this machine's allow-list"
                + (config.allowedImages().isEmpty() ? " (it allows none)" : " (" + String.join(", ", config.allowedImages()) + ")"));
        }
        final String name = containerName(request.leaseId());
        final List<String> argv = new ArrayList<>(List.of(config.docker(), "run", "-d", "--name", name,
            "--label", "gpux.lease=" + request.leaseId(), "--label", "gpux.agent=" + config.machine(),
            "--gpus", "\"device=" + WorkloadEnv.indices(request) + "\""));
        if (config.memory() != null)
        {
            argv.addAll(List.of("--memory", config.memory()));
        }
        if (config.cpus() != null)
        {
            argv.addAll(List.of("--cpus", config.cpus()));
        }
        if (config.pidsLimit() > 0)
        {
            argv.addAll(List.of("--pids-limit", Integer.toString(config.pidsLimit())));
        }
        try
        {
            Files.createDirectories(request.noticeFile().getParent());
            argv.addAll(List.of("-v", request.noticeFile().getParent() + ":" + NOTICE_MOUNT + ":ro"));
            if (request.checkpointDir() != null)
            {
                Files.createDirectories(request.checkpointDir());
                argv.addAll(List.of("-v", request.checkpointDir() + ":" + CHECKPOINT_MOUNT));
            }
            if (spec.sshPublicKey() != null)
            {
                final Path keys = request.leaseDir().resolve("authorized_keys");
                Files.writeString(keys, spec.sshPublicKey() + "\n", StandardCharsets.UTF_8);
                argv.addAll(List.of("-v", keys + ":" + AUTHORIZED_KEYS_MOUNT + ":ro"));
            }
        }
        catch (final IOException ex)
        {
            throw new WorkloadException("cannot prepare " + request.leaseDir() + ": " + ex.getMessage());
        }
        final Map<String, String> env = WorkloadEnv.of(request, NOTICE_MOUNT + "/" + LaunchRequest.NOTICE_FILE,
            request.checkpointDir() == null ? null : CHECKPOINT_MOUNT);
        env.forEach((key, value) -> argv.addAll(List.of("-e", key + "=" + value)));
        for (final int port : spec.ports())
        {
            argv.addAll(List.of("-p", Integer.toString(port)));
        }
        argv.add(spec.image());
        if (spec.command() != null)
        {
            argv.add(spec.command());
        }
        argv.addAll(spec.args());

        final CommandRunner.Result result = CommandRunner.run(argv, RUN_TIMEOUT_MS);
        if (result.exitCode() != 0)
        {
            throw new WorkloadException("docker run failed for lease " + request.leaseId() + ": " + result.firstErrorLine());
        }
        return handle(request.leaseId(), name, request.gpus().stream().map(gpu -> gpu.index()).toList(), request.leaseDir());
    }

    @Override
    public void signal(final WorkloadHandle handle, final WorkloadSignal signal) throws WorkloadException
    {
        final CommandRunner.Result result = docker("kill", "--signal=" + signal.name(), handle.container());
        if (result.exitCode() != 0 && running(handle))
        {
            throw new WorkloadException("cannot send " + signal + " to " + handle.container() + ": " + result.firstErrorLine());
        }
    }

    @Override
    public void kill(final WorkloadHandle handle) throws WorkloadException
    {
        docker("kill", handle.container());
        final CommandRunner.Result removed = docker("rm", "-f", handle.container());
        if (removed.exitCode() != 0 && !removed.firstErrorLine().contains("No such container"))
        {
            throw new WorkloadException("cannot remove " + handle.container() + ": " + removed.firstErrorLine());
        }
    }

    @Override
    public void stop(final WorkloadHandle handle, final int graceSeconds) throws WorkloadException
    {
        docker("stop", "-t", Integer.toString(graceSeconds), handle.container());
        kill(handle);
    }

    @Override
    public OptionalInt exitCode(final WorkloadHandle handle) throws WorkloadException
    {
        final CommandRunner.Result result = docker("inspect", "--format", "{{.State.Status}} {{.State.ExitCode}}",
            handle.container());
        if (result.exitCode() != 0)
        {
            return OptionalInt.of(WorkloadStatus.UNKNOWN_EXIT_CODE);
        }
        final String[] state = result.stdout().trim().split(" ");
        if (state.length == 2 && ("running".equals(state[0]) || "created".equals(state[0]) || "restarting".equals(state[0])
            || "paused".equals(state[0])))
        {
            return OptionalInt.empty();
        }
        try
        {
            return OptionalInt.of(Integer.parseInt(state[state.length - 1]));
        }
        catch (final NumberFormatException ex)
        {
            return OptionalInt.of(WorkloadStatus.UNKNOWN_EXIT_CODE);
        }
    }

    @Override
    public List<String> logTail(final WorkloadHandle handle, final int lines) throws WorkloadException
    {
        final CommandRunner.Result result = docker("logs", "--tail", Integer.toString(lines), handle.container());
        if (result.exitCode() != 0)
        {
            throw new WorkloadException("cannot read the logs of " + handle.container() + ": " + result.firstErrorLine());
        }
        final List<String> out = new ArrayList<>();
        for (final String text : new String[]{ result.stdout(), result.stderr() })
        {
            for (final String line : text.split("\n"))
            {
                if (!line.isEmpty())
                {
                    out.add(line);
                }
            }
        }
        return out;
    }

    @Override
    public List<Endpoint> endpoints(final WorkloadHandle handle, final List<Integer> ports) throws WorkloadException
    {
        final CommandRunner.Result result = docker("port", handle.container());
        if (result.exitCode() != 0)
        {
            throw new WorkloadException("cannot read the ports of " + handle.container() + ": " + result.firstErrorLine());
        }
        // one line per binding: "8888/tcp -> 0.0.0.0:49153", and "[::]:49153" for IPv6, skipped
        final List<Endpoint> endpoints = new ArrayList<>();
        for (final String line : result.stdout().split("\n"))
        {
            final int arrow = line.indexOf(" -> ");
            final int slash = line.indexOf('/');
            if (arrow < 0 || slash < 0 || line.startsWith("[") || line.contains("[::]"))
            {
                continue;
            }
            final String host = line.substring(arrow + 4).trim();
            final int colon = host.lastIndexOf(':');
            endpoints.add(new Endpoint(Integer.parseInt(line.substring(0, slash).trim()), host.substring(0, colon),
                Integer.parseInt(host.substring(colon + 1))));
        }
        return endpoints;
    }

    @Override
    public List<WorkloadHandle> listRunning() throws WorkloadException
    {
        final CommandRunner.Result result = docker("ps", "-a", "--filter", "label=gpux.agent=" + config.machine(),
            "--format", "{{.Names}}");
        if (result.exitCode() != 0)
        {
            throw new WorkloadException("cannot list this agent's containers: " + result.firstErrorLine());
        }
        final List<WorkloadHandle> handles = new ArrayList<>();
        for (final String line : result.stdout().split("\n"))
        {
            final String name = line.trim();
            if (name.startsWith(CONTAINER_PREFIX))
            {
                try
                {
                    handles.add(handle(Long.parseLong(name.substring(CONTAINER_PREFIX.length())), name, List.of(), null));
                }
                catch (final NumberFormatException ignored)
                {
                    // a container named like ours by someone else: not ours to stop
                }
            }
        }
        return handles;
    }

    private boolean running(final WorkloadHandle handle) throws WorkloadException
    {
        return exitCode(handle).isEmpty();
    }

    private static WorkloadHandle handle(final long leaseId, final String name, final List<Integer> gpus, final Path dir)
    {
        return new WorkloadHandle(leaseId, NAME, 0, 0, name, gpus, dir);
    }

    private CommandRunner.Result docker(final String... args) throws WorkloadException
    {
        final List<String> argv = new ArrayList<>(List.of(config.docker()));
        argv.addAll(List.of(args));
        return CommandRunner.run(argv, COMMAND_TIMEOUT_MS);
    }
}
