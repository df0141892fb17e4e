package io.gpux.gateway;

import com.google.protobuf.ByteString;
import io.gpux.gateway.auth.Authenticator;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Login;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A blocking test connection that speaks raw frames, to drive the gateway byte by byte. Writes are
 * synchronized, so that {@link #startHeartbeats} can keep a connection alive from another thread
 * while the test thread sends requests, or does not read at all.
 */
final class RawConnection implements AutoCloseable
{
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final ScheduledExecutorService HEARTBEATS = Executors.newSingleThreadScheduledExecutor(r ->
    {
        final Thread t = new Thread(r, "raw-connection-heartbeats");
        t.setDaemon(true);
        return t;
    });
    final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;
    private long nextRequestId = 1;
    private ScheduledFuture<?> heartbeats;

    RawConnection(final int port) throws IOException
    {
        this(port, 0);
    }

    /** A connection whose socket receive buffer is set before connecting (0: the system's default). */
    RawConnection(final int port, final int receiveBufferBytes) throws IOException
    {
        this(port, receiveBufferBytes, null);
    }

    /** A connection from another loopback address (127.0.0.2, ...: on Linux, all of 127/8 is this machine). */
    static RawConnection from(final String localAddress, final int port) throws IOException
    {
        return new RawConnection(port, 0, localAddress);
    }

    private RawConnection(final int port, final int receiveBufferBytes, final String localAddress) throws IOException
    {
        socket = new Socket();
        if (receiveBufferBytes > 0)
        {
            socket.setReceiveBufferSize(receiveBufferBytes);
        }
        if (localAddress != null)
        {
            socket.bind(new InetSocketAddress(localAddress, 0));
        }
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(5000);
        out = new DataOutputStream(new java.io.BufferedOutputStream(socket.getOutputStream(), 64 * 1024));
        in = new DataInputStream(new java.io.BufferedInputStream(socket.getInputStream(), 64 * 1024));
    }

    /** Frames over a socket connected already (a TLS socket, say). */
    RawConnection(final Socket connected) throws IOException
    {
        socket = connected;
        socket.setSoTimeout(5000);
        out = new DataOutputStream(new java.io.BufferedOutputStream(socket.getOutputStream(), 64 * 1024));
        in = new DataInputStream(new java.io.BufferedInputStream(socket.getInputStream(), 64 * 1024));
    }

    synchronized void send(final Envelope env) throws IOException
    {
        final byte[] bytes = env.toByteArray();
        out.writeInt(bytes.length);
        out.write(bytes);
        out.flush();
    }

    /** Sends a request with the next request id; returns the id. */
    synchronized long request(final Envelope.Builder env) throws IOException
    {
        final long id = nextRequestId++;
        send(env.setRequestId(id).build());
        return id;
    }

    /** Frames many requests (numbered from the next request id) and sends them in one write; returns the first id. */
    synchronized long requests(final java.util.List<Envelope.Builder> envs) throws IOException
    {
        final long first = nextRequestId;
        for (final Envelope.Builder env : envs)
        {
            final byte[] bytes = env.setRequestId(nextRequestId++).build().toByteArray();
            out.writeInt(bytes.length);
            out.write(bytes);
        }
        out.flush();
        return first;
    }

    synchronized void sendRaw(final byte[] bytes) throws IOException
    {
        out.write(bytes);
        out.flush();
    }

    /**
     * Sends a Heartbeat every {@code intervalMs} from a background thread until closed, so that the
     * server does not time the connection out while the test is busy elsewhere (or not reading).
     */
    void startHeartbeats(final long intervalMs)
    {
        heartbeats = HEARTBEATS.scheduleAtFixedRate(() ->
        {
            try
            {
                send(Envelope.newBuilder().setHeartbeat(io.gpux.proto.v1.Heartbeat.getDefaultInstance()).build());
            }
            catch (final IOException ex)
            {
                heartbeats.cancel(false);
            }
        }, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    }

    void stopHeartbeats()
    {
        if (heartbeats != null)
        {
            heartbeats.cancel(false);
        }
    }

    int localPort()
    {
        return socket.getLocalPort();
    }

    /** The next frame, or null when the server closed the connection. */
    Envelope read() throws IOException
    {
        try
        {
            final int length = in.readInt();
            final byte[] bytes = new byte[length];
            in.readFully(bytes);
            return Envelope.parseFrom(bytes);
        }
        catch (final EOFException ex)
        {
            return null;
        }
        catch (final java.net.SocketException ex)
        {
            return null;
        }
    }

    /** The next frame that is not a heartbeat. */
    Envelope readNonHeartbeat() throws IOException
    {
        while (true)
        {
            final Envelope e = read();
            if (e == null || e.getBodyCase() != Envelope.BodyCase.HEARTBEAT)
            {
                return e;
            }
        }
    }

    /** Reads until a frame of the given kind (skipping others), or null at close. */
    Envelope readUntil(final Envelope.BodyCase kind) throws IOException
    {
        while (true)
        {
            final Envelope e = read();
            if (e == null || e.getBodyCase() == kind)
            {
                return e;
            }
        }
    }

    /** Reads the Response to a request (skipping other frames). */
    Envelope responseTo(final long requestId) throws IOException
    {
        Envelope sessionError = null;
        while (true)
        {
            final Envelope e = read();
            if (e == null)
            {
                throw new EOFException("closed before the response to " + requestId
                    + (sessionError == null ? "" : " (after " + sessionError.getSessionError() + ")"));
            }
            if (e.getBodyCase() == Envelope.BodyCase.SESSION_ERROR)
            {
                sessionError = e;
            }
            if (e.getRequestId() == requestId && e.getBodyCase() != Envelope.BodyCase.EVENT)
            {
                return e;
            }
        }
    }

    /** True if the server closes the connection within the socket timeout. */
    boolean closedByServer() throws IOException
    {
        try
        {
            while (read() != null)
            {
                // drain until close
            }
            return true;
        }
        catch (final SocketTimeoutException ex)
        {
            return false;
        }
    }

    static Login.Builder login(final long keyId, final String secretHex, final long nowMs)
    {
        final byte[] nonce = new byte[16];
        RANDOM.nextBytes(nonce);
        final byte[] signature = Authenticator.sign(HexFormat.of().parseHex(secretHex), keyId, nowMs, nonce);
        return Login.newBuilder().setKeyId(keyId).setTimestampMs(nowMs)
            .setNonce(ByteString.copyFrom(nonce)).setSignature(ByteString.copyFrom(signature));
    }

    /** Logs in; returns the LoginAccepted envelope (or the SessionError). */
    Envelope login(final long keyId, final String secretHex) throws IOException
    {
        send(Envelope.newBuilder().setLogin(login(keyId, secretHex, System.currentTimeMillis())).build());
        return readNonHeartbeat();
    }

    @Override
    public void close() throws IOException
    {
        stopHeartbeats();
        socket.close();
    }
}
