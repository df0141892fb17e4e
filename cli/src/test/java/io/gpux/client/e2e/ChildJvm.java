package io.gpux.client.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The command line of a child JVM of the end-to-end tests (a server, an agent): this JVM's {@code java}, the
 * flags of {@link ServerProcess#jvmFlags()}, this JVM's class path with its jars ahead of its class directories,
 * and a class-data sharing archive of the classes a server loads until it listens.
 *
 * <p>The archive is made once per build, under {@code target/e2e-cds}: a server started for it and stopped with
 * SIGTERM writes it as it exits ({@code -XX:ArchiveClassesAtExit}). Every child JVM then maps those classes,
 * parsed and verified, instead of loading them from the jars. Its name is a digest of the JDK, the class path and
 * its jars' sizes and times, so that a rebuilt jar gets an archive of its own (a JVM given an archive made on other
 * jars would say so and load without it). Only classes of jars are archived: a class directory on the path must
 * come after the last jar a class was archived from, hence the jars first. Where no archive can be made (a server
 * class in a directory, say), the children start without one.
 */
final class ChildJvm
{
    private static final String SERVER_MAIN = "io.gpux.gateway.ServerMain";
    private static final long ARCHIVE_TIMEOUT_MS = TimeUnit.SECONDS.toMillis(90);

    private static boolean archiveTried;
    private static Path archive;

    private ChildJvm()
    {
    }

    /** java, its flags, the shared archive if there is one, then {@code flags}, and the class path: add the main class. */
    static List<String> command(final String... flags)
    {
        final Path shared = archive();
        final List<String> cmd = new ArrayList<>();
        cmd.add(java());
        cmd.addAll(ServerProcess.jvmFlags());
        if (shared != null)
        {
            cmd.add("-XX:SharedArchiveFile=" + shared);
        }
        cmd.addAll(List.of(flags));
        cmd.add("-cp");
        cmd.add(classPath());
        return cmd;
    }

    /** This JVM's class path, its jars first, then its directories (the archive's rule, see the class comment). */
    static String classPath()
    {
        final List<String> jars = new ArrayList<>();
        final List<String> dirs = new ArrayList<>();
        for (final String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator))
        {
            (Files.isDirectory(Path.of(entry)) ? dirs : jars).add(entry);
        }
        jars.addAll(dirs);
        return String.join(java.io.File.pathSeparator, jars);
    }

    private static String java()
    {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** The archive for this class path, made on first use; null where none could be made. */
    private static synchronized Path archive()
    {
        if (!archiveTried)
        {
            archiveTried = true;
            try
            {
                final Path dir = Files.createDirectories(targetDir().resolve("e2e-cds"));
                final Path file = dir.resolve(digest() + ".jsa");
                if (!Files.exists(file))
                {
                    make(file);
                }
                archive = Files.exists(file) ? file : null;
            }
            catch (final IOException | RuntimeException ex)
            {
                System.err.println("e2e: child JVMs start without a class-data archive: " + ex);
            }
        }
        return archive;
    }

    /** Starts a server that writes the archive as it exits, waits until it listens, and stops it. */
    private static void make(final Path file) throws IOException
    {
        final long start = System.nanoTime();
        final Path work = Files.createTempDirectory("gpux-e2e-cds-");
        final Path written = work.resolve("classes.jsa");
        final Path portFile = work.resolve("server.port");
        final Path log = work.resolve("server.log");
        final List<String> cmd = new ArrayList<>();
        cmd.add(java());
        cmd.addAll(ServerProcess.jvmFlags());
        cmd.addAll(List.of("-XX:ArchiveClassesAtExit=" + written, "-Xmx512m", "-cp", classPath(), SERVER_MAIN,
            "--port", "0", "--data", work.resolve("data").toString(), "--port-file", portFile.toString()));
        final Process server = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try
        {
            final long deadline = System.currentTimeMillis() + ARCHIVE_TIMEOUT_MS;
            while (!(Files.exists(portFile) && Files.readString(portFile).endsWith("\n")) && server.isAlive()
                && System.currentTimeMillis() < deadline)
            {
                Thread.sleep(20);
            }
            server.destroy();
            if (server.waitFor(ARCHIVE_TIMEOUT_MS, TimeUnit.MILLISECONDS) && Files.exists(written))
            {
                try (DirectoryStream<Path> old = Files.newDirectoryStream(file.getParent(), "*.jsa"))
                {
                    for (final Path stale : old)
                    {
                        Files.delete(stale);
                    }
                }
                Files.move(written, file, StandardCopyOption.ATOMIC_MOVE);
                System.out.printf("e2e: class-data archive of the child JVMs made in %d ms%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            }
            else
            {
                System.err.println("e2e: child JVMs start without a class-data archive: the server made none:\n"
                    + Files.readString(log, StandardCharsets.UTF_8));
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        finally
        {
            server.destroyForcibly();
            deleteTree(work);
        }
    }

    /** A digest of what an archive depends on: the JDK, the class path, its jars' sizes and times. */
    private static String digest() throws IOException
    {
        try
        {
            final MessageDigest sha = MessageDigest.getInstance("SHA-256");
            final StringBuilder text = new StringBuilder(System.getProperty("java.home"))
                .append('\n').append(System.getProperty("java.vm.version"))
                .append('\n').append(String.join(" ", ServerProcess.jvmFlags()));
            for (final String entry : classPath().split(java.io.File.pathSeparator))
            {
                final Path path = Path.of(entry);
                text.append('\n').append(entry);
                if (Files.isRegularFile(path))
                {
                    text.append(' ').append(Files.size(path)).append(' ').append(Files.getLastModifiedTime(path).toMillis());
                }
            }
            return HexFormat.of().formatHex(sha.digest(text.toString().getBytes(StandardCharsets.UTF_8)), 0, 12);
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /** The build directory: where this class was loaded from (target/test-classes) is in it. */
    private static Path targetDir()
    {
        try
        {
            return Path.of(ChildJvm.class.getProtectionDomain().getCodeSource().getLocation().toURI()).getParent();
        }
        catch (final URISyntaxException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /** Removes a directory and what is in it, saying on stderr what it could not. */
    static void deleteTree(final Path dir)
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        catch (final IOException | UncheckedIOException ex)
        {
            System.err.println("e2e: cannot remove " + dir + ": " + ex);
        }
    }
}
