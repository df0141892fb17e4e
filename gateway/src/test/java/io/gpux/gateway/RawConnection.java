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

/** A blocking test connection that speaks raw frames, to drive the gateway byte by byte. */
final class RawConnection implements AutoCloseable
{
    private static final SecureRandom RANDOM = new SecureRandom();
    final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;
    private long nextRequestId = 1;

    RawConnection(final int port) throws IOException
    {
        socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(5000);
        out = new DataOutputStream(socket.getOutputStream());
        in = new DataInputStream(socket.getInputStream());
    }

    void send(final Envelope env) throws IOException
    {
        final byte[] bytes = env.toByteArray();
        out.writeInt(bytes.length);
        out.write(bytes);
        out.flush();
    }

    /** Sends a request with the next request id; returns the id. */
    long request(final Envelope.Builder env) throws IOException
    {
        final long id = nextRequestId++;
        send(env.setRequestId(id).build());
        return id;
    }

    void sendRaw(final byte[] bytes) throws IOException
    {
        out.write(bytes);
        out.flush();
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
        while (true)
        {
            final Envelope e = read();
            if (e == null)
            {
                throw new EOFException("closed before the response to " + requestId);
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
        socket.close();
    }
}
