package io.gpux.client.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpux.client.GpuxClient;
import io.gpux.gateway.tls.Certificates;
import io.gpux.gateway.tls.ServerTls;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpux server} as a real process: with {@code --tls-self-signed} it makes its certificate,
 * prints the fingerprint a client then pins to log in; without TLS it refuses to listen off loopback,
 * in one line, before it makes anything.
 */
@DisabledOnOs(OS.WINDOWS)
class ServerTlsProcessTest
{
    private static final Pattern FINGERPRINT = Pattern.compile("TLS certificate fingerprint (SHA256:[0-9A-F:]{95})\n");

    @TempDir
    Path dir;
    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void killServers() throws InterruptedException
    {
        for (final Process p : started)
        {
            p.destroy();
            if (!p.waitFor(30, TimeUnit.SECONDS))
            {
                p.destroyForcibly();
            }
        }
    }

    @Test
    void selfSignedServerPrintsTheFingerprintThatClientsPin() throws Exception
    {
        final Path data = dir.resolve("data");
        final Path portFile = dir.resolve("port");
        final Path keyFile = dir.resolve("admin.key");
        final Path out = dir.resolve("out.txt");
        final Process server = start(out, "--tls-self-signed", "--port", "0", "--data", data.toString(), "--port-file",
            portFile.toString(), "--admin-key-file", keyFile.toString());
        E2e.await("the server's listening line", E2e.TIMEOUT,
            () -> read(out).contains("gpux server: listening on") || !server.isAlive(), () -> read(out));
        assertTrue(server.isAlive(), read(out));

        final String printed = read(out);
        final Matcher m = FINGERPRINT.matcher(printed);
        assertTrue(m.find(), printed);
        final Path cert = data.resolve("tls").resolve(ServerTls.SELF_SIGNED_CERT);
        assertEquals(Certificates.fingerprint(ServerTls.readCertificates(cert).get(0)), m.group(1));
        assertTrue(printed.contains("made a self-signed TLS certificate: " + cert.toAbsolutePath()), printed);
        assertTrue(printed.contains(" (TLS), data in "), printed);

        final String[] key = Files.readString(keyFile).trim().split(":");
        final int port = Integer.parseInt(Files.readString(portFile).trim());
        try (GpuxClient admin = E2e.connect(port, new E2e.Key(Long.parseLong(key[0]), key[1]), new Recorder("admin"),
            c -> c.tlsFingerprint(m.group(1))))
        {
            assertTrue(admin.markets(E2e.TIMEOUT).getMarketsCount() > 0);
        }
    }

    @Test
    void plainTcpOffLoopbackIsRefusedInOneLine() throws Exception
    {
        final Path data = dir.resolve("data");
        final Path out = dir.resolve("out.txt");
        final Path halfOut = dir.resolve("half-out.txt");
        // the two refusals start at once: each is a process of its own, with its own output
        final Process server = start(out, "--bind", "0.0.0.0", "--port", "0", "--data", data.toString());
        final Process half = start(halfOut, "--tls-cert", dir.resolve("cert.pem").toString(), "--data",
            dir.resolve("half-data").toString());
        assertTrue(server.waitFor(60, TimeUnit.SECONDS), "the server exits");
        assertEquals(2, server.exitValue(), read(out));
        assertEquals("gpux server: refusing plain TCP on 0.0.0.0: it is not a loopback address, so logins and orders " +
            "would cross the network unencrypted; give --tls-cert and --tls-key (or --tls-self-signed), or " +
            "--allow-plaintext; see gpux server --help\n", read(out));
        assertFalse(Files.exists(data), "refused before making anything");

        assertTrue(half.waitFor(60, TimeUnit.SECONDS), "the server exits");
        assertEquals(2, half.exitValue(), read(halfOut));
        assertEquals("gpux server: TLS needs both --tls-cert FILE and --tls-key FILE; see gpux server --help\n", read(halfOut));
    }

    private Process start(final Path out, final String... args) throws Exception
    {
        final List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(ServerProcess.jvmFlags());
        cmd.add("-Xmx256m");
        // a server that lives for seconds: start-up costs more than peak speed gains (no C2 compiler threads)
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("io.gpux.gateway.ServerMain");
        cmd.addAll(List.of(args));
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        started.add(p);
        return p;
    }

    private static String read(final Path file)
    {
        try
        {
            return Files.readString(file, StandardCharsets.UTF_8);
        }
        catch (final java.io.IOException ex)
        {
            return "(no output: " + ex.getMessage() + ")";
        }
    }
}
