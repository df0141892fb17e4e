package io.gpux.client.agent.workload;

import io.gpux.client.workload.WorkloadSpec;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Runs a workload as a process group of this machine: {@code setsid /bin/sh -c COMMAND}, optionally
 * as an unprivileged user the owner names ({@code setpriv --reuid --regid --init-groups}, which
 * needs the agent to run as root). The process leads its own session and process group, so a
 * signal reaches the whole tree the command started, and a kill leaves nothing behind.
 * <p>
 * The environment is the job's variables, the agent's {@code GPUX_*} and GPU variables, and the
 * agent's {@code PATH}, {@code LANG} and {@code TZ}; nothing else of the agent's environment
 * leaks in. The working directory is {@code LEASE_DIR/work}, standard output and error go to
 * {@code LEASE_DIR/workload.log}.
 * <p>
 * It isolates nothing beyond the GPU variables: the workload shares the machine's files, network,
 * memory and CPUs with whatever else runs under its user, and a program can ignore
 * {@code CUDA_VISIBLE_DEVICES}. It says so in the agent's log and the workload's log at each start.
 */
public final class ProcessRuntime implements WorkloadRuntime
{
    /** The runtime's name in handles and the state file. */
    public static final String NAME = "process";
    /** What the agent says at each start. */
    public static final String ISOLATION_WARNING = "runtime process isolates nothing beyond the GPUs: the workload "
        + "shares this machine's files, network, memory and CPUs with its user, and CUDA_VISIBLE_DEVICES is a request, "
        + "not a wall";

    private static final long GRACE_POLL_MS = 20;
    private static final long OWN_GROUP_TIMEOUT_MS = 5_000;
    private static final java.util.regex.Pattern SHELL_OPERATORS = java.util.regex.Pattern.compile("[;&|()`\\n]|\\$\\(|^\\s*(exec|[A-Za-z_][A-Za-z0-9_]*=)");
    private static final List<String> PASSED_ENV = List.of("PATH", "LANG", "TZ");

    private final String runAsUser;
    private final Consumer<String> log;
    private final Map<Long, Started> started = new ConcurrentHashMap<>();

    /** A workload this runtime started in this run of the agent. */
    private record Started(Process process, WorkloadHandle handle)
    {
    }

    /**
     * @param runAsUser the user workloads run as, or null for the agent's own user.
     * @param log       where the agent's log lines go.
     */
    public ProcessRuntime(final String runAsUser, final Consumer<String> log)
    {
        this.runAsUser = runAsUser;
        this.log = log;
    }

    @Override
    public WorkloadSpec.Runtime kind()
    {
        return WorkloadSpec.Runtime.PROCESS;
    }

    @Override
    public WorkloadHandle start(final LaunchRequest request) throws WorkloadException
    {
        final Path workDir = request.leaseDir().resolve("work");
        final Path logFile = request.logFile();
        final String gpus = WorkloadEnv.indices(request);
        final String startLine = "lease " + request.leaseId() + " attempt " + request.attempt() + " on GPUs " + gpus
            + ": " + ISOLATION_WARNING;
        try
        {
            Files.createDirectories(workDir);
            Files.createDirectories(request.noticeFile().getParent());
            if (request.checkpointDir() != null)
            {
                Files.createDirectories(request.checkpointDir());
            }
            if (runAsUser != null)
            {
                giveTo(runAsUser, workDir, request.checkpointDir());
            }
            Files.writeString(logFile, "gpux: " + startLine + "\n", StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
        catch (final IOException ex)
        {
            throw new WorkloadException("cannot prepare " + request.leaseDir() + ": " + ex.getMessage());
        }
        log.accept(startLine);

        final List<String> argv = new ArrayList<>(List.of("setsid"));
        if (runAsUser != null)
        {
            argv.addAll(List.of("setpriv", "--reuid=" + runAsUser, "--regid=" + groupOf(runAsUser), "--init-groups", "--"));
        }
        argv.addAll(List.of("/bin/sh", "-c", shellLine(request.spec().command())));
        final ProcessBuilder builder = new ProcessBuilder(argv)
            .directory(workDir.toFile())
            .redirectInput(new File("/dev/null"))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        final Map<String, String> env = builder.environment();
        env.keySet().retainAll(PASSED_ENV);
        env.put("HOME", workDir.toString());
        final String checkpoint = request.checkpointDir() == null ? null : request.checkpointDir().toString();
        env.putAll(WorkloadEnv.of(request, request.noticeFile().toString(), checkpoint));

        final Process process;
        try
        {
            process = builder.start();
        }
        catch (final IOException ex)
        {
            throw new WorkloadException("cannot start the workload of lease " + request.leaseId() + ": " + ex.getMessage());
        }
        final long startTicks = awaitOwnGroup(process, request.leaseId());
        final WorkloadHandle handle = new WorkloadHandle(request.leaseId(), NAME, process.pid(), startTicks, null,
            request.gpus().stream().map(gpu -> gpu.index()).toList(), request.leaseDir());
        started.put(request.leaseId(), new Started(process, handle));
        return handle;
    }

    @Override
    public void signal(final WorkloadHandle handle, final WorkloadSignal signal) throws WorkloadException
    {
        ProcessGroups.signal(handle.pid(), handle.startTicks(), signal);
    }

    @Override
    public void kill(final WorkloadHandle handle) throws WorkloadException
    {
        ProcessGroups.kill(handle.pid(), handle.startTicks());
        final Started process = started.get(handle.leaseId());
        if (process != null && process.handle().equals(handle))
        {
            started.remove(handle.leaseId());
            process.process().destroyForcibly();
        }
    }

    @Override
    public void stop(final WorkloadHandle handle, final int graceSeconds) throws WorkloadException
    {
        signal(handle, WorkloadSignal.TERM);
        final long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(graceSeconds);
        while (System.nanoTime() - deadline < 0 && !ProcessGroups.members(handle.pid(), handle.startTicks()).isEmpty())
        {
            ProcessGroups.pause(GRACE_POLL_MS);
        }
        kill(handle);
    }

    /**
     * Empty while any process of the workload's group lives, so a program still saving its
     * checkpoint after its shell ended counts as running; then the command's own exit status.
     */
    @Override
    public OptionalInt exitCode(final WorkloadHandle handle)
    {
        if (!ProcessGroups.members(handle.pid(), handle.startTicks()).isEmpty())
        {
            return OptionalInt.empty();
        }
        final Started process = started.get(handle.leaseId());
        if (process != null && process.handle().equals(handle))
        {
            // the group is empty once the leader is a zombie; the JVM reaps it a moment later
            return process.process().isAlive() ? OptionalInt.empty() : OptionalInt.of(process.process().exitValue());
        }
        return OptionalInt.of(WorkloadStatus.UNKNOWN_EXIT_CODE);
    }

    /**
     * Waits until the started process leads its own process group ({@code setsid} has run), so that
     * a signal or kill sent to the group right after the start reaches it.
     *
     * @return the process's start time in clock ticks, or 0 if it ended first.
     */
    private static long awaitOwnGroup(final Process process, final long leaseId) throws WorkloadException
    {
        final long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(OWN_GROUP_TIMEOUT_MS);
        while (process.isAlive())
        {
            final ProcessGroups.Stat stat = ProcessGroups.stat(process.pid());
            if (stat != null && stat.pgid() == process.pid())
            {
                return stat.startTicks();
            }
            if (System.nanoTime() - deadline > 0)
            {
                process.destroyForcibly();
                throw new WorkloadException("the workload of lease " + leaseId + " did not get its own process group within "
                    + OWN_GROUP_TIMEOUT_MS + " ms");
            }
            Thread.onSpinWait();
        }
        return 0;
    }

    /**
     * A single simple command is exec'd, so the workload's program leads its group and receives
     * the notice signal as itself, and its exit status is the workload's; a command line with shell
     * operators runs under the shell, which ends on TERM while its children handle the signal.
     */
    static String shellLine(final String command)
    {
        return SHELL_OPERATORS.matcher(command).find() ? command : "exec " + command;
    }

    @Override
    public List<String> logTail(final WorkloadHandle handle, final int lines) throws WorkloadException
    {
        return LogTail.read(handle.leaseDir().resolve(LaunchRequest.LOG_FILE), lines);
    }

    @Override
    public List<Endpoint> endpoints(final WorkloadHandle handle, final List<Integer> ports)
    {
        return ports.stream().map(port -> new Endpoint(port, "0.0.0.0", port)).toList();
    }

    /**
     * The workloads this runtime started in this run of the agent whose group still has a process;
     * those of an earlier run are known from the supervisor's state file only.
     */
    @Override
    public List<WorkloadHandle> listRunning()
    {
        return started.values().stream()
            .map(Started::handle)
            .filter(handle -> !ProcessGroups.members(handle.pid(), handle.startTicks()).isEmpty())
            .toList();
    }

    private static void giveTo(final String user, final Path workDir, final Path checkpointDir) throws IOException
    {
        final var owner = workDir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(user);
        Files.setOwner(workDir, owner);
        if (checkpointDir != null)
        {
            Files.setOwner(checkpointDir, owner);
        }
    }

    private static String groupOf(final String user) throws WorkloadException
    {
        final CommandRunner.Result result = CommandRunner.run(List.of("id", "-g", user), 5_000);
        if (result.exitCode() != 0)
        {
            throw new WorkloadException("cannot run workloads as " + user + ": " + result.firstErrorLine());
        }
        return result.stdout().trim();
    }
}
