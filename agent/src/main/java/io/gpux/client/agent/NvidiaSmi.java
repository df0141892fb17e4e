package io.gpux.client.agent;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * GPU discovery and telemetry by running NVIDIA's {@code nvidia-smi} tool, one short-lived process
 * per query.
 * <p>
 * Both queries ask for {@code --format=csv,nounits}: the header is kept so the parser can check
 * every column is the field it expects (a driver that renamed or dropped a field fails loudly
 * instead of shifting columns), and units are dropped because the header already names them.
 * Each call starts a process and two pipe-draining threads, which costs well under a millisecond
 * next to nvidia-smi's own run time of tens of milliseconds; it is meant for discovery at start-up
 * and sampling every few seconds, not for a hot loop.
 * <p>
 * {@link #recorded(String)} answers instead from output recorded on a real machine and shipped with
 * the client (an owner tries the agent without a GPU, the demo runs agents on any machine): discovery
 * prints the recorded GPUs, and each telemetry sample is the next line of a recorded run under load.
 * <p>
 * Instances are thread-safe; concurrent calls run separate processes.
 */
public final class NvidiaSmi
{
    /** The executable looked up on the {@code PATH} when no path is given. */
    public static final String DEFAULT_EXECUTABLE = "nvidia-smi";

    /**
     * Default limit on one run. nvidia-smi normally answers in well under a second, but without
     * persistence mode the driver initialises every GPU on each call, which takes seconds on an
     * 8-GPU machine; a hung driver never answers, and that is what the limit is for.
     */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    /** Most output accepted from one run: about 4,000 GPU lines, far beyond any machine. */
    public static final int MAX_OUTPUT_BYTES = 1024 * 1024;

    /** The fields of the discovery query, in order (the query of the captured H200 fixtures). */
    public static final List<String> DISCOVERY_FIELDS = List.of(
        "name", "uuid", "serial", "pci.bus_id", "driver_version",
        "memory.total", "memory.used", "memory.free",
        "utilization.gpu", "utilization.memory", "temperature.gpu",
        "power.draw", "power.limit", "clocks.sm", "clocks.max.sm",
        "ecc.errors.uncorrected.volatile.total", "pstate", "compute_cap");

    /** The fields of the telemetry query: a timestamp, then the discovery fields. */
    public static final List<String> TELEMETRY_FIELDS = withTimestamp(DISCOVERY_FIELDS);

    /** The recordings {@link #recorded(String)} knows. */
    public static final List<String> RECORDINGS = List.of("h200");

    private static final String FORMAT = "--format=csv,nounits";
    private static final String RECORDED_PREFIX = "recorded:";

    private final String executable;
    private final long timeoutNs;
    private final NvidiaSmiCsv discoveryCsv = new NvidiaSmiCsv(DISCOVERY_FIELDS, true);
    private final NvidiaSmiCsv telemetryCsv = new NvidiaSmiCsv(TELEMETRY_FIELDS, true);
    private final Recording recording;

    /** Runs {@value #DEFAULT_EXECUTABLE} from the {@code PATH} with the {@link #DEFAULT_TIMEOUT}. */
    public NvidiaSmi()
    {
        this(DEFAULT_EXECUTABLE, DEFAULT_TIMEOUT);
    }

    /**
     * Runs the given executable.
     *
     * @param executable the path of nvidia-smi, or a name looked up on the {@code PATH}.
     * @param timeout    how long one run may take before it is killed.
     * @throws IllegalArgumentException if the executable is blank or the timeout not positive.
     */
    public NvidiaSmi(final String executable, final Duration timeout)
    {
        Objects.requireNonNull(executable, "executable");
        Objects.requireNonNull(timeout, "timeout");
        if (executable.isBlank())
        {
            throw new IllegalArgumentException("blank executable");
        }
        if (timeout.isNegative() || timeout.isZero())
        {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        this.executable = executable;
        this.timeoutNs = timeout.toNanos();
        this.recording = null;
    }

    private NvidiaSmi(final Recording recording)
    {
        this.executable = RECORDED_PREFIX + recording.name;
        this.timeoutNs = DEFAULT_TIMEOUT.toNanos();
        this.recording = recording;
    }

    /**
     * An nvidia-smi that answers with the output recorded on a real machine, shipped in the client's
     * resources ({@code io/gpux/client/agent/recorded/NAME}, with its provenance in a README): {@code h200},
     * one NVIDIA H200 141 GB. Discovery gives the recorded GPUs idle; telemetry goes through the samples
     * of a recorded matrix-multiply run (utilization 0 to 100 %, power about 120 to 690 W), one per call,
     * from the first again after the last.
     *
     * @param name one of {@link #RECORDINGS}.
     * @return the recorded nvidia-smi.
     * @throws IllegalArgumentException if there is no such recording.
     */
    public static NvidiaSmi recorded(final String name)
    {
        if (!RECORDINGS.contains(name))
        {
            throw new IllegalArgumentException("no recorded GPUs named '" + name + "'; known: " + String.join(", ", RECORDINGS));
        }
        final String discovery = resource(name, "query-idle.csv");
        final String[] load = resource(name, "telemetry-load.csv").split("\r?\n");
        final List<String> samples = new ArrayList<>();
        for (int i = 1; i < load.length; i++)
        {
            if (!load[i].isBlank())
            {
                samples.add(load[0] + "\n" + load[i] + "\n");
            }
        }
        return new NvidiaSmi(new Recording(name, discovery, List.copyOf(samples)));
    }

    /** Whether this answers from a recording rather than running a tool. */
    public boolean isRecorded()
    {
        return recording != null;
    }

    /**
     * The executable run.
     *
     * @return the path or name of nvidia-smi.
     */
    public String executable()
    {
        return executable;
    }

    /**
     * The limit on one run.
     *
     * @return the timeout.
     */
    public Duration timeout()
    {
        return Duration.ofNanos(timeoutNs);
    }

    /**
     * Lists the machine's GPUs.
     *
     * @return the GPUs in nvidia-smi's order.
     * @throws NvidiaSmiException if the tool is missing, fails, times out or prints malformed output.
     */
    public List<GpuInfo> discover() throws NvidiaSmiException
    {
        return discoveryCsv.parseGpus(recording != null ? recording.discovery
            : ProcessRunner.run(command(DISCOVERY_FIELDS), timeoutNs, MAX_OUTPUT_BYTES));
    }

    /**
     * Takes one telemetry sample of every GPU.
     *
     * @return one sample per GPU, in nvidia-smi's order.
     * @throws NvidiaSmiException if the tool is missing, fails, times out or prints malformed output.
     */
    public List<GpuTelemetry> sample() throws NvidiaSmiException
    {
        return telemetryCsv.parseTelemetry(recording != null ? recording.nextSample()
            : ProcessRunner.run(command(TELEMETRY_FIELDS), timeoutNs, MAX_OUTPUT_BYTES));
    }

    /**
     * The command line of a query.
     *
     * @param fields the {@code --query-gpu} fields.
     * @return the executable and its arguments.
     */
    public List<String> command(final List<String> fields)
    {
        return List.of(executable, "--query-gpu=" + String.join(",", fields), FORMAT);
    }

    private static List<String> withTimestamp(final List<String> fields)
    {
        final List<String> withTimestamp = new ArrayList<>(fields.size() + 1);
        withTimestamp.add("timestamp");
        withTimestamp.addAll(fields);
        return List.copyOf(withTimestamp);
    }

    private static String resource(final String name, final String file)
    {
        final String path = "recorded/" + name + "/" + file;
        try (InputStream in = NvidiaSmi.class.getResourceAsStream(path))
        {
            if (in == null)
            {
                throw new IllegalStateException("the client's resources lack " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot read the client's resource " + path + ": " + ex.getMessage(), ex);
        }
    }

    /** Output recorded on a real machine: the discovery query's, and the telemetry samples in turn. */
    private static final class Recording
    {
        final String name;
        final String discovery;
        final List<String> samples;
        final AtomicInteger next = new AtomicInteger();

        Recording(final String name, final String discovery, final List<String> samples)
        {
            this.name = name;
            this.discovery = discovery;
            this.samples = samples;
        }

        String nextSample()
        {
            return samples.get(Math.floorMod(next.getAndIncrement(), samples.size()));
        }
    }
}
