package io.gpux.client.agent;

import io.gpux.client.GpuxClient;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

/**
 * The {@link OwnerAgent}'s settings: fluent setters and same-name getters; {@link #conclude()} validates (the
 * agent calls it). Required: {@link #client} and {@link #reservePrice}.
 */
public final class OwnerAgentContext
{
    /** Default heartbeat interval (the exchange's default {@code heartbeatIntervalMs}). */
    public static final Duration HEARTBEAT_INTERVAL_DEFAULT = Duration.ofSeconds(5);
    /** Default wait for each answer of the exchange. */
    public static final Duration REQUEST_TIMEOUT_DEFAULT = Duration.ofSeconds(10);
    /** Default time a graceful stop waits past its reclaim notices' effective time for the leases' ends. */
    public static final Duration STOP_MARGIN_DEFAULT = Duration.ofSeconds(5);

    private static final int MAX_MACHINE_NAME = 64;

    private GpuxClient client;
    private NvidiaSmi nvidiaSmi;
    private String machineName;
    private String market;
    private String region = "";
    private String interconnect = "";
    private Duration heartbeatInterval = HEARTBEAT_INTERVAL_DEFAULT;
    private Duration requestTimeout = REQUEST_TIMEOUT_DEFAULT;
    private long reservePrice;
    private long price;
    private boolean undercut;
    private Duration clearEvery;
    private Path reclaimFile;
    private AgentWorkloads workloads;
    private boolean withdrawOnClose;
    private OwnerAgentListener listener;
    private String threadName = "gpux-owner-agent";
    private Duration stopMargin = STOP_MARGIN_DEFAULT;
    private NanoClock nanoClock = SystemNanoClock.INSTANCE;

    /** Checks the settings and fills in the defaults; called by the agent's constructor. */
    public OwnerAgentContext conclude()
    {
        if (client == null)
        {
            throw new IllegalArgumentException("an owner agent needs a client");
        }
        if (reservePrice < 1)
        {
            throw new IllegalArgumentException("the reserve price must be positive");
        }
        if (price == 0)
        {
            price = reservePrice;
        }
        if (price < reservePrice)
        {
            throw new IllegalArgumentException("the asking price must not be below the reserve price");
        }
        if (clearEvery != null && (clearEvery.isNegative() || clearEvery.isZero() || undercut))
        {
            throw new IllegalArgumentException("clearing needs a positive interval and excludes undercutting");
        }
        if (heartbeatInterval.isNegative() || heartbeatInterval.isZero()
            || requestTimeout.isNegative() || requestTimeout.isZero())
        {
            throw new IllegalArgumentException("the heartbeat interval and the request timeout must be positive");
        }
        if (stopMargin == null || stopMargin.isNegative())
        {
            throw new IllegalArgumentException("the stop margin must not be negative");
        }
        if (nanoClock == null)
        {
            nanoClock = SystemNanoClock.INSTANCE;
        }
        if (nvidiaSmi == null)
        {
            nvidiaSmi = new NvidiaSmi();
        }
        if (machineName == null)
        {
            machineName = hostMachineName();
        }
        if (!machineName.matches("[A-Za-z0-9._-]{1," + MAX_MACHINE_NAME + "}"))
        {
            throw new IllegalArgumentException("a machine name is 1 to 64 of A-Z a-z 0-9 . _ -: '" + machineName + "'");
        }
        if (listener == null)
        {
            listener = new OwnerAgentListener()
            {
            };
        }
        region = region == null ? "" : region;
        interconnect = interconnect == null ? "" : interconnect;
        return this;
    }

    /** The host's name, cut to a valid machine name. */
    static String hostMachineName()
    {
        String host;
        try
        {
            host = InetAddress.getLocalHost().getHostName();
        }
        catch (final IOException ex)
        {
            host = System.getenv().getOrDefault("HOSTNAME", "machine");
        }
        final String name = host.replaceAll("[^A-Za-z0-9._-]", "-");
        return name.isEmpty() ? "machine" : name.substring(0, Math.min(MAX_MACHINE_NAME, name.length()));
    }

    /** The logged-in client of an OWNER or MARKET_MAKER key; required. The agent does not close it. */
    public OwnerAgentContext client(final GpuxClient client)
    {
        this.client = client;
        return this;
    }

    public GpuxClient client()
    {
        return client;
    }

    /** How to run nvidia-smi; default {@code nvidia-smi} from the PATH. */
    public OwnerAgentContext nvidiaSmi(final NvidiaSmi nvidiaSmi)
    {
        this.nvidiaSmi = nvidiaSmi;
        return this;
    }

    public NvidiaSmi nvidiaSmi()
    {
        return nvidiaSmi;
    }

    /** The machine's name, unique for the account; default the host name. */
    public OwnerAgentContext machineName(final String machineName)
    {
        this.machineName = machineName;
        return this;
    }

    public String machineName()
    {
        return machineName;
    }

    /** The market to register in; default the first GPU's {@link GpuInfo#marketSymbol()}. */
    public OwnerAgentContext market(final String market)
    {
        this.market = market;
        return this;
    }

    public String market()
    {
        return market;
    }

    /** The machine's region; default none. */
    public OwnerAgentContext region(final String region)
    {
        this.region = region;
        return this;
    }

    public String region()
    {
        return region;
    }

    /** The GPUs' interconnect, e.g. NVLINK; default none. */
    public OwnerAgentContext interconnect(final String interconnect)
    {
        this.interconnect = interconnect;
        return this;
    }

    public String interconnect()
    {
        return interconnect;
    }

    /** How often to heartbeat, sample and re-price; default 5 s. */
    public OwnerAgentContext heartbeatInterval(final Duration heartbeatInterval)
    {
        this.heartbeatInterval = heartbeatInterval;
        return this;
    }

    public Duration heartbeatInterval()
    {
        return heartbeatInterval;
    }

    /** How long to wait for each answer of the exchange; default 10 s. */
    public OwnerAgentContext requestTimeout(final Duration requestTimeout)
    {
        this.requestTimeout = requestTimeout;
        return this;
    }

    public Duration requestTimeout()
    {
        return requestTimeout;
    }

    /** The least to take per GPU-hour, in ticks: the ask never goes below it; required. */
    public OwnerAgentContext reservePrice(final long reservePrice)
    {
        this.reservePrice = reservePrice;
        return this;
    }

    public long reservePrice()
    {
        return reservePrice;
    }

    /**
     * The asking price in ticks: the fixed price, or with {@link #undercut} the price while no other
     * ask is on the book; default the reserve price.
     */
    public OwnerAgentContext price(final long price)
    {
        this.price = price;
        return this;
    }

    public long price()
    {
        return price;
    }

    /** Re-price each interval to one tick below the best other ask, never below the reserve; default off. */
    public OwnerAgentContext undercut(final boolean undercut)
    {
        this.undercut = undercut;
        return this;
    }

    public boolean undercut()
    {
        return undercut;
    }

    /**
     * Re-price every this long with {@link ClearingPricing}, between the reserve and the asking price: an
     * idle ask meets the best bid at or above the reserve, or steps down; a fully leased one steps up;
     * default null (off).
     */
    public OwnerAgentContext clearEvery(final Duration clearEvery)
    {
        this.clearEvery = clearEvery;
        return this;
    }

    public Duration clearEvery()
    {
        return clearEvery;
    }

    /** While this file exists the machine is reclaimed (see {@link OwnerAgent#reclaim()}); default none. */
    public OwnerAgentContext reclaimFile(final Path reclaimFile)
    {
        this.reclaimFile = reclaimFile;
        return this;
    }

    public Path reclaimFile()
    {
        return reclaimFile;
    }

    /**
     * Runs the workloads the exchange launches on the machine's leases (null: the agent ignores
     * launches and no status is reported). It hears the account's events (launches, notices, lease ends) from
     * the client; the agent feeds it the portfolios it reads and closes it.
     */
    public OwnerAgentContext workloads(final AgentWorkloads workloads)
    {
        this.workloads = workloads;
        return this;
    }

    public AgentWorkloads workloads()
    {
        return workloads;
    }

    /** Cancel the ask (without reclaim: leases run on) when the agent closes; default false. */
    public OwnerAgentContext withdrawOnClose(final boolean withdrawOnClose)
    {
        this.withdrawOnClose = withdrawOnClose;
        return this;
    }

    public boolean withdrawOnClose()
    {
        return withdrawOnClose;
    }

    public OwnerAgentContext listener(final OwnerAgentListener listener)
    {
        this.listener = listener;
        return this;
    }

    public OwnerAgentListener listener()
    {
        return listener;
    }

    /**
     * How long a graceful {@link OwnerAgent#stop()} waits past the market's grace after its last reclaim
     * for the leases' ends (lease events travel, the exchange's timers fire on its ticks); default 5 s.
     */
    public OwnerAgentContext stopMargin(final Duration stopMargin)
    {
        this.stopMargin = stopMargin;
        return this;
    }

    public Duration stopMargin()
    {
        return stopMargin;
    }

    /** The clock of the intervals and of a graceful stop's deadline; default the system's. */
    public OwnerAgentContext nanoClock(final NanoClock nanoClock)
    {
        this.nanoClock = nanoClock;
        return this;
    }

    public NanoClock nanoClock()
    {
        return nanoClock;
    }

    public OwnerAgentContext threadName(final String threadName)
    {
        this.threadName = threadName;
        return this;
    }

    public String threadName()
    {
        return threadName;
    }
}
