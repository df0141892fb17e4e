package io.gpux.client;

import com.google.protobuf.ByteString;
import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Login;
import io.gpux.proto.v1.SessionErrorCode;

/**
 * Login and resume of one {@link GpuxClient}: the signed Login of each new connection, asking for
 * the account events after the last one delivered ({@code last_seq}), and which session errors a new
 * Login would meet again.
 */
final class SessionLogin
{
    private final ClientContext ctx;

    SessionLogin(final ClientContext ctx)
    {
        this.ctx = ctx;
    }

    /** The Login for a new connection; {@code lastSeq} -1: start live, no resend. */
    Envelope login(final long requestId, final long lastSeq)
    {
        final byte[] nonce = new byte[LoginSigner.NONCE_BYTES];
        ctx.nonceSource().nextBytes(nonce);
        final long now = ctx.clock().getAsLong();
        final Login.Builder login = Login.newBuilder()
            .setKeyId(ctx.keyId())
            .setTimestampMs(now)
            .setNonce(ByteString.copyFrom(nonce))
            .setSignature(ctx.isMarketData() ? ByteString.EMPTY
                : ByteString.copyFrom(LoginSigner.sign(ctx.secret(), ctx.keyId(), now, nonce)))
            .setCancelOnDisconnect(ctx.cancelOnDisconnect())
            .setClientName(ctx.clientName());
        if (lastSeq >= 0)
        {
            login.setLastSeq(lastSeq);
        }
        return Envelope.newBuilder().setRequestId(requestId).setLogin(login).build();
    }

    /** Errors that the same Login would meet again: reconnecting cannot help. */
    static boolean isFatal(final SessionErrorCode code)
    {
        return code == SessionErrorCode.AUTHENTICATION_FAILED
            || code == SessionErrorCode.KEY_REVOKED
            || code == SessionErrorCode.RESEND_UNAVAILABLE
            || code == SessionErrorCode.PROTOCOL_VIOLATION;
    }
}
