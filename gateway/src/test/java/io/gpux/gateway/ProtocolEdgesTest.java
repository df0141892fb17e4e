package io.gpux.gateway;

import io.gpux.proto.v1.Envelope;
import io.gpux.proto.v1.Heartbeat;
import io.gpux.proto.v1.MachineHeartbeat;
import io.gpux.proto.v1.PlaceAsk;
import io.gpux.proto.v1.PlaceBid;
import io.gpux.proto.v1.QuoteRequest;
import io.gpux.proto.v1.Reason;
import io.gpux.proto.v1.RegisterMachine;
import io.gpux.proto.v1.Replace;
import io.gpux.proto.v1.Response;
import io.gpux.proto.v1.Role;
import io.gpux.proto.v1.SessionErrorCode;
import io.gpux.proto.v1.Subscribe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The protocol's edges as docs/protocol.md states them: the frame limit counts the Envelope's bytes
 * alone, undefined enum values and out-of-range GPU counts are refused rather than read as something
 * else, a zero-length Envelope and a Subscribe to an unknown market get the documented answers.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProtocolEdgesTest
{
    private static final String MARKET = "A100-80G";
    private static final int MAX_FRAME = 65_536;

    private static TestExchange ex;
    private static TestExchange.Key owner;
    private static TestExchange.Key renter;

    @BeforeAll
    static void start() throws Exception
    {
        ex = TestExchange.start(c -> c.maxFrameBytes(MAX_FRAME));
        try (RawConnection admin = ex.login(ex.admin))
        {
            owner = TestExchange.account(admin, "owner", 0, Role.OWNER);
            renter = TestExchange.account(admin, "renter", 1_000_000_000_000L, Role.RENTER);
        }
    }

    @AfterAll
    static void stop()
    {
        ex.close();
    }

    /** A PlaceBid Envelope padded (in its region field) to exactly {@code size} bytes. */
    private static byte[] bidOfSize(final int size)
    {
        int pad = size;
        while (true)
        {
            final byte[] bytes = Envelope.newBuilder().setRequestId(1).setPlaceBid(PlaceBid.newBuilder()
                .setOrderId(1).setMarket(MARKET).setGpus(1).setPrice(1).setRegion("r".repeat(pad))).build().toByteArray();
            if (bytes.length == size)
            {
                return bytes;
            }
            pad -= bytes.length - size;
        }
    }

    private static byte[] framed(final byte[] envelope) throws IOException
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(envelope.length);
        out.write(envelope);
        return bytes.toByteArray();
    }

    @Test
    void anEnvelopeOfExactlyMaxFrameBytesIsReadAndOneByteMoreIsRefused() throws Exception
    {
        try (RawConnection c = ex.login(renter))
        {
            c.sendRaw(framed(bidOfSize(MAX_FRAME)));
            final Envelope answer = c.responseTo(1);
            assertEquals(Envelope.BodyCase.RESPONSE, answer.getBodyCase(), answer::toString);
        }
        try (RawConnection c = ex.login(renter))
        {
            c.sendRaw(framed(bidOfSize(MAX_FRAME + 1)));
            final Envelope error = c.readNonHeartbeat();
            assertEquals(SessionErrorCode.FRAME_TOO_LARGE, error.getSessionError().getCode(), error::toString);
            assertTrue(error.getSessionError().getMessage().contains(Integer.toString(MAX_FRAME)), error::toString);
            assertNull(c.readNonHeartbeat(), "closed after the error");
        }
    }

    @Test
    void anUndefinedTimeInForceIsAnInvalidRequestNotGtc() throws Exception
    {
        try (RawConnection c = ex.login(renter))
        {
            final Response r = TestExchange.response(c, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
                .setOrderId(7).setMarket(MARKET).setGpus(1).setPrice(10_000).setTifValue(3)));
            assertEquals(Reason.INVALID_REQUEST, r.getReason(), r::toString);
            assertTrue(r.getMessage().contains("tif 3"), r::toString);
            assertEquals(0, r.getCommandSeq(), "never reached the engine");

            final Response negative = TestExchange.response(c, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
                .setOrderId(8).setMarket(MARKET).setGpus(1).setPrice(10_000).setTifValue(-1)));
            assertEquals(Reason.INVALID_REQUEST, negative.getReason(), negative::toString);

            final Envelope quote = c.responseTo(c.request(Envelope.newBuilder().setQuoteRequest(QuoteRequest.newBuilder()
                .setMarket(MARKET).setGpus(1).setPrice(10_000).setTifValue(9))));
            assertEquals(Reason.INVALID_PARAMETER, quote.getQuoteResult().getReject(), quote::toString);

            // the defined values still go through
            final Response ioc = TestExchange.response(c, Envelope.newBuilder().setPlaceBid(PlaceBid.newBuilder()
                .setOrderId(9).setMarket(MARKET).setGpus(1).setPrice(10_000).setTifValue(1)));
            assertEquals(Reason.REASON_OK, ioc.getReason(), ioc::toString);
        }
    }

    @Test
    void gpuCountsBeyondAnIntAreRefusedNotClamped() throws Exception
    {
        try (RawConnection c = ex.login(owner))
        {
            final Response huge = TestExchange.response(c, Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder()
                .setName("huge").setMarket(MARKET).setGpus(-1)));
            assertEquals(Reason.INVALID_REQUEST, huge.getReason(), huge::toString);
            assertTrue(huge.getMessage().contains("4294967295"), huge::toString);

            final long machine = TestExchange.ok(c, Envelope.newBuilder().setRegisterMachine(RegisterMachine.newBuilder()
                .setName("rig").setMarket(MARKET).setGpus(8))).getAssignedId();
            TestExchange.ok(c, Envelope.newBuilder().setMachineHeartbeat(MachineHeartbeat.newBuilder().setMachineId(machine)));
            final Response ask = TestExchange.response(c, Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder()
                .setOrderId(1).setMachineId(machine).setGpus(-1).setPrice(1_000_000)));
            assertEquals(Reason.INVALID_REQUEST, ask.getReason(), ask::toString);
            final Response badTif = TestExchange.response(c, Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder()
                .setOrderId(1).setMachineId(machine).setGpus(1).setPrice(1_000_000).setTifValue(5)));
            assertEquals(Reason.INVALID_REQUEST, badTif.getReason(), badTif::toString);
            TestExchange.ok(c, Envelope.newBuilder().setPlaceAsk(PlaceAsk.newBuilder()
                .setOrderId(2).setMachineId(machine).setGpus(1).setPrice(1_000_000)));
            final Response replace = TestExchange.response(c, Envelope.newBuilder().setReplace(Replace.newBuilder()
                .setOrderId(2).setGpus(-1)));
            assertEquals(Reason.INVALID_REQUEST, replace.getReason(), replace::toString);
        }
    }

    @Test
    void aZeroLengthEnvelopeBeforeLoginIsNotLoggedInAndAfterItAProtocolViolation() throws Exception
    {
        try (RawConnection c = ex.connect())
        {
            c.sendRaw(new byte[4]);
            final Envelope error = c.readNonHeartbeat();
            assertEquals(SessionErrorCode.NOT_LOGGED_IN, error.getSessionError().getCode(), error::toString);
            assertNull(c.readNonHeartbeat());
        }
        try (RawConnection c = ex.login(renter))
        {
            c.sendRaw(new byte[4]);
            final Envelope error = c.readNonHeartbeat();
            assertEquals(SessionErrorCode.PROTOCOL_VIOLATION, error.getSessionError().getCode(), error::toString);
            assertNull(c.readNonHeartbeat());
        }
    }

    @Test
    void aSubscribeToAnUnknownMarketIsAResponseUnknownMarketAndTheSessionGoesOn() throws Exception
    {
        try (RawConnection c = ex.login(renter))
        {
            final Response r = TestExchange.response(c, Envelope.newBuilder().setSubscribe(Subscribe.newBuilder()
                .setMarket("NO-SUCH-GPU")));
            assertEquals(Reason.UNKNOWN_MARKET, r.getReason(), r::toString);
            c.send(Envelope.newBuilder().setHeartbeat(Heartbeat.getDefaultInstance()).build());
            final Envelope snapshot = c.responseTo(c.request(Envelope.newBuilder().setSubscribe(Subscribe.newBuilder()
                .setMarket(MARKET))));
            assertEquals(Envelope.BodyCase.BOOK_SNAPSHOT, snapshot.getBodyCase(), snapshot::toString);
        }
    }
}
