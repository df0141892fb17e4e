package io.gpux.client;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * How to build a {@link GpuxClient}: fluent setters and same-name getters; {@link #conclude()}
 * validates (the client calls it). Required: {@code port}, {@code keyId}, {@code secretHex}; or
 * {@link #marketData()} instead of a key.
 */
public final class ClientContext
{
    private String host = "127.0.0.1";
    private int port;
    private long keyId;
    private String secretHex;
    private byte[] secret;
    private boolean marketData;
    private ClientListener listener;
    private EventLoopGroup eventLoopGroup;
    private Class<? extends SocketChannel> socketChannelClass = NioSocketChannel.class;
    private String clientName = "gpux-client";
    private boolean cancelOnDisconnect;
    private boolean heartbeats = true;
    private boolean reconnect = true;
    private Duration reconnectBackoffInitial = Duration.ofMillis(100);
    private Duration reconnectBackoffMax = Duration.ofSeconds(5);
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration loginTimeout = Duration.ofSeconds(10);
    private LongSupplier clock = System::currentTimeMillis;
    private Random nonceSource;
    private int maxPendingCommands = 4096;
    private long firstOrderId;
    private long lastSeq = -1;
    private int maxFrameBytes = 64 * 1024;
    private int writeBufferLowWaterMark = 32 * 1024;
    private int writeBufferHighWaterMark = 64 * 1024;
    private Consumer<Throwable> errorHandler = Throwable::printStackTrace;
    private boolean tls;
    private Path tlsCaFile;
    private String tlsFingerprint;
    private SslContext sslContext;

    /** Checks the settings and derives the rest; called by the client's constructor. */
    public ClientContext conclude()
    {
        if (host == null || host.isEmpty())
        {
            throw new IllegalArgumentException("host is required");
        }
        if (port < 1 || port > 65_535)
        {
            throw new IllegalArgumentException("port must be 1 to 65535, got " + port);
        }
        if (marketData)
        {
            if (keyId != 0 || secretHex != null)
            {
                throw new IllegalArgumentException("a market-data login takes no key");
            }
        }
        else
        {
            if (keyId == 0)
            {
                throw new IllegalArgumentException("keyId is required");
            }
            secret = LoginSigner.parseSecret(secretHex);
        }
        if (maxPendingCommands < 1 || maxFrameBytes < 64 || writeBufferLowWaterMark > writeBufferHighWaterMark)
        {
            throw new IllegalArgumentException("maxPendingCommands, maxFrameBytes or the water marks are out of range");
        }
        if (nonceSource == null)
        {
            nonceSource = new SecureRandom();
        }
        sslContext = ClientTls.context(tls, tlsCaFile, tlsFingerprint);
        return this;
    }

    /** The gateway's host name or address; default 127.0.0.1. */
    public ClientContext host(final String host)
    {
        this.host = host;
        return this;
    }

    public String host()
    {
        return host;
    }

    /**
     * Connect over TLS (1.3 or 1.2), trusting the JVM's certificate authorities and checking that the
     * gateway's certificate names {@link #host}; default false (plain TCP). Implied by
     * {@link #tlsCaFile} and {@link #tlsFingerprint}.
     */
    public ClientContext tls(final boolean tls)
    {
        this.tls = tls;
        return this;
    }

    /** Whether the client connects over TLS. */
    public boolean tls()
    {
        return tls || tlsCaFile != null || tlsFingerprint != null;
    }

    /**
     * Connect over TLS and trust the certificate authorities of this PEM file (instead of the JVM's):
     * the gateway's certificate must chain to one of them and name {@link #host}.
     */
    public ClientContext tlsCaFile(final Path tlsCaFile)
    {
        this.tlsCaFile = tlsCaFile;
        return this;
    }

    public Path tlsCaFile()
    {
        return tlsCaFile;
    }

    /**
     * Connect over TLS and accept only the gateway certificate with this SHA-256 fingerprint
     * ({@code SHA256:AB:CD:...}, as {@code gpux server} prints it; colons and case optional); a
     * different certificate fails the connection with both fingerprints in the reason.
     */
    public ClientContext tlsFingerprint(final String tlsFingerprint)
    {
        this.tlsFingerprint = tlsFingerprint;
        return this;
    }

    public String tlsFingerprint()
    {
        return tlsFingerprint;
    }

    /** The TLS context built by {@link #conclude()}, or null for plain TCP. */
    SslContext sslContext()
    {
        return sslContext;
    }

    /** The gateway's port; required. */
    public ClientContext port(final int port)
    {
        this.port = port;
        return this;
    }

    public int port()
    {
        return port;
    }

    /** The API key's id; required. */
    public ClientContext keyId(final long keyId)
    {
        this.keyId = keyId;
        return this;
    }

    public long keyId()
    {
        return keyId;
    }

    /**
     * Logs in without a key, as a market-data session (Login key_id 0): it may only read the markets,
     * books, trades and price history; anything else is refused NOT_AUTHORIZED.
     */
    public ClientContext marketData()
    {
        this.marketData = true;
        return this;
    }

    public boolean isMarketData()
    {
        return marketData;
    }

    /** The API key's secret as its 64 hex digits; required. */
    public ClientContext secretHex(final String secretHex)
    {
        this.secretHex = secretHex;
        return this;
    }

    byte[] secret()
    {
        return secret;
    }

    /** The first listener (more with {@link GpuxClient#addListener}); optional. */
    public ClientContext listener(final ClientListener listener)
    {
        this.listener = listener;
        return this;
    }

    public ClientListener listener()
    {
        return listener;
    }

    /**
     * A group to take the client's event loop from, shared with other clients and not shut down
     * by {@link GpuxClient#close()}; null (the default): the client runs a one-thread NIO group
     * of its own. An epoll group needs {@link #socketChannelClass} set to EpollSocketChannel.
     */
    public ClientContext eventLoopGroup(final EventLoopGroup eventLoopGroup)
    {
        this.eventLoopGroup = eventLoopGroup;
        return this;
    }

    public EventLoopGroup eventLoopGroup()
    {
        return eventLoopGroup;
    }

    /** The socket channel type matching the event loop group; default NioSocketChannel. */
    public ClientContext socketChannelClass(final Class<? extends SocketChannel> socketChannelClass)
    {
        this.socketChannelClass = socketChannelClass;
        return this;
    }

    public Class<? extends SocketChannel> socketChannelClass()
    {
        return socketChannelClass;
    }

    /** Free text for the gateway's logs. */
    public ClientContext clientName(final String clientName)
    {
        this.clientName = clientName;
        return this;
    }

    public String clientName()
    {
        return clientName;
    }

    /** Asks the gateway to cancel the account's open orders when a session of this client ends. */
    public ClientContext cancelOnDisconnect(final boolean cancelOnDisconnect)
    {
        this.cancelOnDisconnect = cancelOnDisconnect;
        return this;
    }

    public boolean cancelOnDisconnect()
    {
        return cancelOnDisconnect;
    }

    /**
     * Whether the client sends a Heartbeat after one interval with nothing sent; default true.
     * (A gateway silent for two intervals is always treated as dead.)
     */
    public ClientContext heartbeats(final boolean heartbeats)
    {
        this.heartbeats = heartbeats;
        return this;
    }

    public boolean heartbeats()
    {
        return heartbeats;
    }

    /** Whether a lost session is re-opened by itself; default true. */
    public ClientContext reconnect(final boolean reconnect)
    {
        this.reconnect = reconnect;
        return this;
    }

    public boolean reconnect()
    {
        return reconnect;
    }

    /** The reconnect delays: doubling from {@code initial} up to {@code max}, with jitter. */
    public ClientContext reconnectBackoff(final Duration initial, final Duration max)
    {
        this.reconnectBackoffInitial = initial;
        this.reconnectBackoffMax = max;
        return this;
    }

    public Duration reconnectBackoffInitial()
    {
        return reconnectBackoffInitial;
    }

    public Duration reconnectBackoffMax()
    {
        return reconnectBackoffMax;
    }

    public ClientContext connectTimeout(final Duration connectTimeout)
    {
        this.connectTimeout = connectTimeout;
        return this;
    }

    public Duration connectTimeout()
    {
        return connectTimeout;
    }

    /** How long to wait for LoginAccepted after the Login; default 10 s. */
    public ClientContext loginTimeout(final Duration loginTimeout)
    {
        this.loginTimeout = loginTimeout;
        return this;
    }

    public Duration loginTimeout()
    {
        return loginTimeout;
    }

    /** Epoch milliseconds, for Login timestamps, heartbeats and the first order id. */
    public ClientContext clock(final LongSupplier clock)
    {
        this.clock = clock;
        return this;
    }

    public LongSupplier clock()
    {
        return clock;
    }

    /** Where Login nonces come from; default a SecureRandom. */
    public ClientContext nonceSource(final Random nonceSource)
    {
        this.nonceSource = nonceSource;
        return this;
    }

    public Random nonceSource()
    {
        return nonceSource;
    }

    /** The most order-entry commands waiting for an answer; default 4096. */
    public ClientContext maxPendingCommands(final int maxPendingCommands)
    {
        this.maxPendingCommands = maxPendingCommands;
        return this;
    }

    public int maxPendingCommands()
    {
        return maxPendingCommands;
    }

    /**
     * The first id {@link GpuxClient#nextOrderId()} hands out; 0 (the default): the clock in
     * milliseconds times 1000, so that a restarted client does not reuse the ids of its orders
     * still open.
     */
    public ClientContext firstOrderId(final long firstOrderId)
    {
        this.firstOrderId = firstOrderId;
        return this;
    }

    public long firstOrderId()
    {
        return firstOrderId;
    }

    /**
     * Resume the first Login after this account event seq (an application that kept its place);
     * -1 (the default): the first session starts live.
     */
    public ClientContext lastSeq(final long lastSeq)
    {
        this.lastSeq = lastSeq;
        return this;
    }

    public long lastSeq()
    {
        return lastSeq;
    }

    /** The largest Envelope accepted from the gateway; default 64 KiB. */
    public ClientContext maxFrameBytes(final int maxFrameBytes)
    {
        this.maxFrameBytes = maxFrameBytes;
        return this;
    }

    public int maxFrameBytes()
    {
        return maxFrameBytes;
    }

    /** Queued order entry stops being written above {@code high} bytes unsent, resumes below {@code low}. */
    public ClientContext writeBufferWaterMark(final int low, final int high)
    {
        this.writeBufferLowWaterMark = low;
        this.writeBufferHighWaterMark = high;
        return this;
    }

    public int writeBufferLowWaterMark()
    {
        return writeBufferLowWaterMark;
    }

    public int writeBufferHighWaterMark()
    {
        return writeBufferHighWaterMark;
    }

    /** Receives what a listener throws (the client carries on); default: print it. */
    public ClientContext errorHandler(final Consumer<Throwable> errorHandler)
    {
        this.errorHandler = errorHandler;
        return this;
    }

    public Consumer<Throwable> errorHandler()
    {
        return errorHandler;
    }
}
