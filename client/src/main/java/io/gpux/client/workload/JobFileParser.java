package io.gpux.client.workload;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.gpux.common.Money;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads a renter's job file (YAML), checking every field; see {@code docs/workloads.md} for the
 * format. Each problem is a {@link JobFileException} naming the line and the field, e.g.
 * {@code job.yaml line 3: resources.gpus: must be 1 to 1024, got 0}. Unknown fields are refused
 * with the list of known ones, so a misspelt field never goes unnoticed. Thread-safe.
 */
public final class JobFileParser
{
    /** Most GPUs one job may ask for. */
    public static final int MAX_GPUS = 1024;
    /** Most attempts that may fail. */
    public static final int MAX_FAILURES_LIMIT = 100;
    /** Largest checkpoint, in MB (1 TiB). */
    public static final int MAX_CHECKPOINT_MB = 1_048_576;
    /** Checkpoint size when the file gives a directory but no size, in MB. */
    public static final int DEFAULT_CHECKPOINT_MB = 1024;

    private static final Set<String> TOP = orderedSet(
        "name", "resources", "run", "env", "ports", "sshPublicKey", "checkpoint", "maxFailures");
    private static final Set<String> RESOURCES = orderedSet(
        "market", "gpus", "maxPrice", "gang", "minReliability", "region");
    private static final Set<String> RUN = orderedSet("runtime", "image", "command", "args");
    private static final Set<String> CHECKPOINT = orderedSet("dir", "maxMb");

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");
    private static final Pattern MARKET = Pattern.compile("[A-Z0-9._-]{2,32}");
    private static final Pattern REGION = Pattern.compile("[a-z0-9][a-z0-9-]{0,31}");
    private static final Pattern IMAGE = Pattern.compile("[a-z0-9][A-Za-z0-9._/:@-]{0,254}");
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Pattern SSH_KEY = Pattern.compile(
        "(ssh-(ed25519|rsa|dss)|ecdsa-sha2-nistp(256|384|521)|sk-[a-z0-9@.-]+) [A-Za-z0-9+/]+=*( [^\\r\\n]*)?");
    private static final Set<String> RESERVED_ENV = Set.of("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES");

    private final YAMLFactory yaml = new YAMLFactory();

    /**
     * Reads a job file.
     *
     * @param file the file; relative checkpoint directories are resolved against its directory.
     * @throws JobFileException if it cannot be read or any field is wrong (the first problem found).
     */
    public JobFile parse(final Path file) throws JobFileException
    {
        final String fileName = String.valueOf(file.getFileName());
        final String text;
        try
        {
            text = Files.readString(file, StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new JobFileException(fileName, 0, "cannot read: " + ex.getMessage());
        }
        final Path base = file.toAbsolutePath().getParent();
        return parse(fileName, text, base);
    }

    /**
     * Reads a job file's text.
     *
     * @param fileName the name problems are reported under.
     * @param text     the YAML.
     * @param base     the directory relative checkpoint directories are resolved against.
     * @throws JobFileException if any field is wrong (the first problem found).
     */
    public JobFile parse(final String fileName, final String text, final Path base) throws JobFileException
    {
        final YamlNode root = readTree(fileName, text);
        return new Reader(fileName, base).job(root);
    }

    private YamlNode readTree(final String fileName, final String text) throws JobFileException
    {
        try (JsonParser parser = yaml.createParser(text))
        {
            final JsonToken first = parser.nextToken();
            if (first == null)
            {
                throw new JobFileException(fileName, 0, "the file is empty");
            }
            final YamlNode root = YamlNode.read(parser);
            if (parser.nextToken() != null)
            {
                throw new JobFileException(fileName, parser.currentTokenLocation().getLineNr(),
                    "one YAML document expected, found another");
            }
            return root;
        }
        catch (final YamlNode.DuplicateKeyException ex)
        {
            throw new JobFileException(fileName, ex.line, ex.key + ": given twice");
        }
        catch (final JsonProcessingException ex)
        {
            final JsonLocation at = ex.getLocation();
            final String problem = ex.getOriginalMessage().replaceAll("\\s+", " ").trim();
            throw new JobFileException(fileName, at == null ? 0 : at.getLineNr(), "not valid YAML: " + problem);
        }
        catch (final IOException ex)
        {
            throw new JobFileException(fileName, 0, "cannot read: " + ex.getMessage());
        }
    }

    private static Set<String> orderedSet(final String... names)
    {
        return java.util.Collections.unmodifiableSet(new java.util.LinkedHashSet<>(List.of(names)));
    }

    /** One parse: the file's name and directory, and the checks. */
    private static final class Reader
    {
        private final String fileName;
        private final Path base;

        Reader(final String fileName, final Path base)
        {
            this.fileName = fileName;
            this.base = base;
        }

        JobFile job(final YamlNode root) throws JobFileException
        {
            final Map<String, YamlNode> top = map(root, "the file", TOP);
            final String name = scalar(required(top, "name", root, ""), "name");
            if (!NAME.matcher(name).matches())
            {
                throw error(top.get("name"), "name: must be 1 to 63 of A-Z a-z 0-9 . _ - starting with a letter or digit, got '"
                    + name + "'");
            }
            final JobFile.Resources resources = resources(required(top, "resources", root, ""));
            final Map<String, String> env = env(top.get("env"));
            final List<Integer> ports = ports(top.get("ports"));
            final String sshKey = sshKey(top.get("sshPublicKey"));
            final WorkloadSpec workload = run(required(top, "run", root, ""), env, ports, top.get("sshPublicKey"), sshKey);
            final JobFile.Checkpoint checkpoint = checkpoint(top.get("checkpoint"));
            final YamlNode maxFailuresNode = top.get("maxFailures");
            final int maxFailures = maxFailuresNode == null
                ? JobFile.DEFAULT_MAX_FAILURES : integer(maxFailuresNode, "maxFailures", 0, MAX_FAILURES_LIMIT);
            return new JobFile(name, resources, workload, checkpoint, maxFailures);
        }

        private JobFile.Resources resources(final YamlNode node) throws JobFileException
        {
            final Map<String, YamlNode> fields = map(node, "resources", RESOURCES);
            final String market = scalar(required(fields, "market", node, "resources."), "resources.market");
            if (!MARKET.matcher(market).matches())
            {
                throw error(fields.get("market"), "resources.market: must be 2 to 32 of A-Z 0-9 - . _, got '" + market + "'");
            }
            final int gpus = integer(required(fields, "gpus", node, "resources."), "resources.gpus", 1, MAX_GPUS);
            final YamlNode priceNode = required(fields, "maxPrice", node, "resources.");
            final long maxPrice = price(priceNode);
            final YamlNode gangNode = fields.get("gang");
            final boolean gang = gangNode != null && bool(gangNode, "resources.gang");
            final YamlNode reliabilityNode = fields.get("minReliability");
            final long minReliability = reliabilityNode == null ? 0 : reliability(reliabilityNode);
            final YamlNode regionNode = fields.get("region");
            String region = null;
            if (regionNode != null)
            {
                region = scalar(regionNode, "resources.region");
                if (!REGION.matcher(region).matches())
                {
                    throw error(regionNode, "resources.region: must be 1 to 32 of a-z 0-9 - starting with a letter or digit, got '"
                        + region + "'");
                }
            }
            return new JobFile.Resources(market, gpus, maxPrice, gang, minReliability, region);
        }

        private long price(final YamlNode node) throws JobFileException
        {
            final String text = scalar(node, "resources.maxPrice");
            final long ticks;
            try
            {
                ticks = Money.parsePrice(text);
            }
            catch (final IllegalArgumentException ex)
            {
                throw error(node, "resources.maxPrice: must be a price with at most 4 decimal places, got '" + text + "'");
            }
            if (ticks <= 0)
            {
                throw error(node, "resources.maxPrice: must be above 0, got '" + text + "'");
            }
            return ticks;
        }

        private long reliability(final YamlNode node) throws JobFileException
        {
            final String text = scalar(node, "resources.minReliability");
            final String problem = "resources.minReliability: must be a fraction from 0 to 1 with at most 9 decimal places, got '"
                + text + "'";
            if (!text.matches("[01](\\.[0-9]{1,9})?"))
            {
                throw error(node, problem);
            }
            final int dot = text.indexOf('.');
            long nanos = (text.charAt(0) - '0') * JobFile.Resources.RELIABILITY_ONE;
            if (dot > 0)
            {
                final String fraction = (text.substring(dot + 1) + "000000000").substring(0, 9);
                nanos += Long.parseLong(fraction);
            }
            if (nanos > JobFile.Resources.RELIABILITY_ONE)
            {
                throw error(node, problem);
            }
            return nanos;
        }

        private WorkloadSpec run(
            final YamlNode node,
            final Map<String, String> env,
            final List<Integer> ports,
            final YamlNode sshNode,
            final String sshKey)
            throws JobFileException
        {
            final Map<String, YamlNode> fields = map(node, "run", RUN);
            final YamlNode runtimeNode = required(fields, "runtime", node, "run.");
            final String runtime = scalar(runtimeNode, "run.runtime");
            final YamlNode commandNode = fields.get("command");
            final String command = commandNode == null ? null : scalar(commandNode, "run.command");
            if (command != null && command.isBlank())
            {
                throw error(commandNode, "run.command: must not be blank");
            }
            if ("process".equals(runtime))
            {
                for (final String dockerOnly : List.of("image", "args"))
                {
                    if (fields.containsKey(dockerOnly))
                    {
                        throw error(fields.get(dockerOnly), "run." + dockerOnly + ": only for runtime docker");
                    }
                }
                if (sshKey != null)
                {
                    throw error(sshNode, "sshPublicKey: only for runtime docker");
                }
                required(fields, "command", node, "run.");
                return new WorkloadSpec(WorkloadSpec.Runtime.PROCESS, null, command, List.of(), env, ports, null);
            }
            if ("docker".equals(runtime))
            {
                final YamlNode imageNode = required(fields, "image", node, "run.");
                final String image = scalar(imageNode, "run.image");
                if (!IMAGE.matcher(image).matches())
                {
                    throw error(imageNode, "run.image: must be an image reference such as nvcr.io/nvidia/pytorch:24.05-py3, got '"
                        + image + "'");
                }
                final List<String> args = fields.containsKey("args") ? strings(fields.get("args"), "run.args") : List.of();
                return new WorkloadSpec(WorkloadSpec.Runtime.DOCKER, image, command, args, env, ports, sshKey);
            }
            throw error(runtimeNode, "run.runtime: must be process or docker, got '" + runtime + "'");
        }

        private Map<String, String> env(final YamlNode node) throws JobFileException
        {
            if (node == null)
            {
                return Map.of();
            }
            if (node.kind != YamlNode.Kind.MAP)
            {
                throw error(node, "env: must be a map of NAME: value, got " + node.describe());
            }
            final Map<String, String> env = new LinkedHashMap<>();
            for (final Map.Entry<String, YamlNode> entry : node.fields.entrySet())
            {
                final String key = entry.getKey();
                final String path = "env." + key;
                if (!ENV_NAME.matcher(key).matches())
                {
                    throw error(entry.getValue(), path + ": a variable name is A-Z a-z 0-9 _ not starting with a digit");
                }
                if (key.startsWith("GPUX_") || RESERVED_ENV.contains(key))
                {
                    throw error(entry.getValue(), path + ": set by the agent, not by the job");
                }
                env.put(key, scalar(entry.getValue(), path));
            }
            return env;
        }

        private List<Integer> ports(final YamlNode node) throws JobFileException
        {
            if (node == null)
            {
                return List.of();
            }
            if (node.kind != YamlNode.Kind.LIST)
            {
                throw error(node, "ports: must be a list of port numbers, got " + node.describe());
            }
            final List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < node.items.size(); i++)
            {
                final YamlNode item = node.items.get(i);
                final int port = integer(item, "ports[" + i + "]", 1, 65535);
                if (ports.contains(port))
                {
                    throw error(item, "ports[" + i + "]: " + port + " is listed twice");
                }
                ports.add(port);
            }
            return ports;
        }

        private String sshKey(final YamlNode node) throws JobFileException
        {
            if (node == null)
            {
                return null;
            }
            final String key = scalar(node, "sshPublicKey").trim();
            if (!SSH_KEY.matcher(key).matches())
            {
                throw error(node, "sshPublicKey: must be one OpenSSH public key line such as 'ssh-ed25519 AAAA... me@laptop'");
            }
            return key;
        }

        private JobFile.Checkpoint checkpoint(final YamlNode node) throws JobFileException
        {
            if (node == null)
            {
                return null;
            }
            final Map<String, YamlNode> fields = map(node, "checkpoint", CHECKPOINT);
            final String dir = scalar(required(fields, "dir", node, "checkpoint."), "checkpoint.dir");
            if (dir.isBlank())
            {
                throw error(fields.get("dir"), "checkpoint.dir: must not be blank");
            }
            final YamlNode maxMbNode = fields.get("maxMb");
            final int maxMb = maxMbNode == null
                ? DEFAULT_CHECKPOINT_MB : integer(maxMbNode, "checkpoint.maxMb", 1, MAX_CHECKPOINT_MB);
            final Path path = Path.of(dir);
            return path.isAbsolute() ? new JobFile.Checkpoint(path.normalize(), maxMb, true)
                : new JobFile.Checkpoint(base == null ? path : base.resolve(path).normalize(), maxMb);
        }

        private Map<String, YamlNode> map(final YamlNode node, final String path, final Set<String> known)
            throws JobFileException
        {
            if (node.kind != YamlNode.Kind.MAP)
            {
                throw error(node, path + ": must be a map, got " + node.describe());
            }
            for (final Map.Entry<String, YamlNode> entry : node.fields.entrySet())
            {
                if (!known.contains(entry.getKey()))
                {
                    final String prefix = "the file".equals(path) ? "" : path + ".";
                    throw error(entry.getValue(), prefix + entry.getKey() + ": unknown field; known: " + String.join(", ", known));
                }
            }
            return node.fields;
        }

        private YamlNode required(
            final Map<String, YamlNode> fields, final String key, final YamlNode parent, final String prefix)
            throws JobFileException
        {
            final YamlNode node = fields.get(key);
            if (node == null || node.kind == YamlNode.Kind.NULL)
            {
                throw error(node == null ? parent : node, prefix + key + ": missing");
            }
            return node;
        }

        private String scalar(final YamlNode node, final String path) throws JobFileException
        {
            if (node.kind != YamlNode.Kind.SCALAR)
            {
                throw error(node, path + ": must be a single value, got " + node.describe());
            }
            return node.text;
        }

        private List<String> strings(final YamlNode node, final String path) throws JobFileException
        {
            if (node.kind != YamlNode.Kind.LIST)
            {
                throw error(node, path + ": must be a list, got " + node.describe());
            }
            final List<String> values = new ArrayList<>(node.items.size());
            for (int i = 0; i < node.items.size(); i++)
            {
                values.add(scalar(node.items.get(i), path + "[" + i + "]"));
            }
            return values;
        }

        private int integer(final YamlNode node, final String path, final int min, final int max)
            throws JobFileException
        {
            final String text = scalar(node, path);
            final String range = "must be " + min + " to " + max + ", got ";
            if (!text.matches("-?[0-9]{1,10}"))
            {
                throw error(node, path + ": " + range + "'" + text + "'");
            }
            final long value = Long.parseLong(text);
            if (value < min || value > max)
            {
                throw error(node, path + ": " + range + value);
            }
            return (int)value;
        }

        private boolean bool(final YamlNode node, final String path) throws JobFileException
        {
            final String text = scalar(node, path);
            if ("true".equals(text))
            {
                return true;
            }
            if ("false".equals(text))
            {
                return false;
            }
            throw error(node, path + ": must be true or false, got '" + text + "'");
        }

        private JobFileException error(final YamlNode node, final String problem)
        {
            return new JobFileException(fileName, node == null ? 0 : node.line, problem);
        }
    }
}
