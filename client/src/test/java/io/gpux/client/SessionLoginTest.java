package io.gpux.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Login;
import io.gpux.proto.v1.SessionErrorCode;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The Login a client sends on each new connection, and which session errors end its reconnects. */
class SessionLoginTest
{
    private static final String SECRET_HEX = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

    private static ClientContext context()
    {
        return new ClientContext().port(7400).keyId(42).secretHex(SECRET_HEX).clientName("test")
            .clock(() -> 1_732_924_800_000L).nonceSource(new Random(7)).cancelOnDisconnect(true).conclude();
    }

    @Test
    void aFreshLoginIsSignedAndStartsLive()
    {
        final ClientContext ctx = context();
        final Envelope envelope = new SessionLogin(ctx).login(9, -1);
        assertEquals(9, envelope.getRequestId());
        final Login login = envelope.getLogin();
        assertEquals(42, login.getKeyId());
        assertEquals(1_732_924_800_000L, login.getTimestampMs());
        assertEquals("test", login.getClientName());
        assertTrue(login.getCancelOnDisconnect());
        assertFalse(login.hasLastSeq(), "no last_seq: the session starts live");
        final byte[] nonce = login.getNonce().toByteArray();
        assertEquals(LoginSigner.NONCE_BYTES, nonce.length);
        assertArrayEquals(LoginSigner.sign(LoginSigner.parseSecret(SECRET_HEX), 42, 1_732_924_800_000L, nonce),
            login.getSignature().toByteArray());
    }

    @Test
    void aResumingLoginAsksForTheEventsAfterTheLastOne()
    {
        final Login login = new SessionLogin(context()).login(1, 17).getLogin();
        assertTrue(login.hasLastSeq());
        assertEquals(17, login.getLastSeq());
    }

    @Test
    void aMarketDataLoginIsUnsigned()
    {
        final ClientContext ctx = new ClientContext().port(7400).marketData().conclude();
        final Login login = new SessionLogin(ctx).login(1, -1).getLogin();
        assertEquals(0, login.getKeyId());
        assertTrue(login.getSignature().isEmpty());
    }

    @Test
    void onlyErrorsTheSameLoginWouldMeetAgainAreFatal()
    {
        assertTrue(SessionLogin.isFatal(SessionErrorCode.AUTHENTICATION_FAILED));
        assertTrue(SessionLogin.isFatal(SessionErrorCode.KEY_REVOKED));
        assertTrue(SessionLogin.isFatal(SessionErrorCode.RESEND_UNAVAILABLE));
        assertTrue(SessionLogin.isFatal(SessionErrorCode.PROTOCOL_VIOLATION));
        for (final SessionErrorCode code : SessionErrorCode.values())
        {
            if (code != SessionErrorCode.UNRECOGNIZED && code != SessionErrorCode.AUTHENTICATION_FAILED
                && code != SessionErrorCode.KEY_REVOKED && code != SessionErrorCode.RESEND_UNAVAILABLE
                && code != SessionErrorCode.PROTOCOL_VIOLATION)
            {
                assertFalse(SessionLogin.isFatal(code), code.name());
            }
        }
    }
}
