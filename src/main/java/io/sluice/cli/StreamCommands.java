package io.sluice.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

import io.sluice.common.Deadline;
import io.sluice.common.SegmentListLimit;
import io.sluice.controller.ControllerClient;
import io.sluice.controller.ProtoMapper;
import io.sluice.controller.StreamSegments;
import io.sluice.errors.AlreadyExistsException;
import io.sluice.errors.NoSuchStreamException;
import io.sluice.errors.PreconditionFailedException;
import io.sluice.stream.Names;
import io.sluice.stream.RetentionPolicy;
import io.sluice.stream.ScalingPolicy;
import io.sluice.stream.ScopedStream;
import io.sluice.stream.Segment;
import io.sluice.stream.SegmentWithRange;
import io.sluice.stream.StreamConfiguration;
import io.sluice.stream.StreamCut;
import io.sluice.segment.SegmentInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code sluice stream create|list|info|seal|delete|truncate}. Streams are named {@code SCOPE/STREAM}. Has no behaviour
 * of its own: without a subcommand it is a usage error.
 */
@Command(name = "stream", mixinStandardHelpOptions = true,
        description = "Create, list, inspect, seal, truncate and delete streams (named SCOPE/STREAM).",
        subcommands = {StreamCommands.Create.class, StreamCommands.ListStreams.class, StreamCommands.Info.class,
            StreamCommands.Seal.class, StreamCommands.Delete.class, StreamCommands.Truncate.class})
final class StreamCommands {

    private StreamCommands() {
    }

    /** Reads {@code SCOPE/STREAM}. */
    static final class StreamConverter implements ITypeConverter<ScopedStream> {
        @Override
        public ScopedStream convert(String value) {
            try {
                return ScopedStream.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** Reads a byte size such as {@code 512M}. */
    static final class BytesConverter implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            try {
                return Formats.parseBytes(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /**
     * Reports a missing stream whose scope is missing as the missing scope (the more useful message). Does not throw.
     *
     * @param failure what the command threw
     * @param stream the stream the command is about
     * @param scopeExists asks the still open client whether a scope exists
     * @return the failure to report
     */
    static RuntimeException missingScope(RuntimeException failure, ScopedStream stream, Predicate<String> scopeExists) {
        if (failure instanceof NoSuchStreamException) {
            try {
                if (!scopeExists.test(stream.scope())) {
                    RuntimeException scope = ProtoMapper.noSuchScope(stream.scope());
                    scope.initCause(failure);
                    return scope;
                }
            } catch (RuntimeException e) {
                failure.addSuppressed(e);
            }
        }
        return failure;
    }

    /** A command about one stream; reports a missing stream of a missing scope as the missing scope. */
    abstract static class StreamCommand extends ControllerCommand {
        @Parameters(index = "0", paramLabel = "SCOPE/STREAM", converter = StreamConverter.class,
                description = "the stream, e.g. examples/orders")
        ScopedStream stream;

        @Override
        RuntimeException refine(RuntimeException failure, ControllerClient controller) {
            return missingScope(failure, stream, controller::scopeExists);
        }

        /**
         * The tail of the stream: its current segments at their lengths, as their segment stores report them.
         *
         * @param current the current segments, not empty
         * @return the cut
         */
        StreamCut tail(ControllerClient controller, StreamSegments current, Deadline deadline) {
            Map<Segment, Long> positions = new TreeMap<>();
            try (SegmentLengths lengths = new SegmentLengths(controller, config)) {
                lengths.read(current.segments(), current.delegationToken(), deadline)
                        .forEach((segment, info) -> positions.put(segment, info.length()));
            }
            return StreamCut.of(positions);
        }

        /** @return the JSON object every stream command's result starts with */
        Map<String, Object> json() {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("stream", stream.scopedName());
            return json;
        }
    }

    /** {@code sluice stream create SCOPE/STREAM [policy options]}. */
    @Command(name = "create", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Creates a stream.",
                "Segments: --segments N for a fixed number (default 1), or a scaling policy that splits a segment "
                    + "whose rate exceeds the target into --scale-factor segments and merges cold ones, keeping at "
                    + "least --min-segments.",
                "Retention (default: keep everything): --retention-time or --retention-size; the controller "
                    + "truncates the stream so that at least that much recent data is kept.",
                "Fails if the stream already exists (already-exists) or its scope does not (not-found)."},
            footer = Main.EXIT_STATUS)
    static final class Create extends StreamCommand {
        @Option(names = "--segments", paramLabel = "N", description = "a fixed number of segments (1 to about "
                + "39,000 with names of 20 characters, 5,800 with names of 250: the list of its segments must fit "
                + "into one controller reply)")
        Integer segments;

        @Option(names = "--scale-by-events-per-sec", paramLabel = "RATE",
                description = "scale by event rate: target events per second per segment")
        Integer eventsPerSecond;

        @Option(names = "--scale-by-kbytes-per-sec", paramLabel = "RATE",
                description = "scale by data rate: target KiB per second per segment")
        Integer kibPerSecond;

        @Option(names = "--scale-factor", paramLabel = "F",
                description = "with a scaling policy: into how many segments a hot segment splits (default 2)")
        Integer scaleFactor;

        @Option(names = "--min-segments", paramLabel = "M",
                description = "with a scaling policy: the fewest segments (default 1, at most as many as "
                        + "--segments takes); also the initial count")
        Integer minSegments;

        @Option(names = "--retention-time", paramLabel = "DURATION",
                converter = ControllerOptions.DurationConverter.class,
                description = "keep data at least this long, e.g. 7d, 12h, PT90M")
        Duration retentionTime;

        @Option(names = "--retention-size", paramLabel = "BYTES", converter = BytesConverter.class,
                description = "keep at least this many bytes, e.g. 1073741824 or 1G (K, M, G, T: powers of 1024)")
        Long retentionSize;

        @Option(names = "--tag", paramLabel = "TAG", description = "a tag for 'stream list --tag'; repeatable")
        List<String> tags = new ArrayList<>();

        private StreamConfiguration configuration;

        @Override
        void validate() {
            Names.validateUserStream(stream.name());
            checkSegments("--segments", segments);
            checkSegments("--min-segments", minSegments);
            int policies = (segments != null ? 1 : 0) + (eventsPerSecond != null ? 1 : 0)
                    + (kibPerSecond != null ? 1 : 0);
            if (policies > 1) {
                throw new IllegalArgumentException("give only one of --segments, --scale-by-events-per-sec and "
                        + "--scale-by-kbytes-per-sec");
            }
            ScalingPolicy scaling;
            if (eventsPerSecond != null || kibPerSecond != null) {
                int factor = scaleFactor == null ? 2 : scaleFactor;
                int min = minSegments == null ? 1 : minSegments;
                scaling = eventsPerSecond != null ? ScalingPolicy.byEventRate(eventsPerSecond, factor, min)
                        : ScalingPolicy.byDataRate(kibPerSecond, factor, min);
            } else {
                if (scaleFactor != null || minSegments != null) {
                    throw new IllegalArgumentException("--scale-factor and --min-segments need a scaling policy: "
                            + "--scale-by-events-per-sec or --scale-by-kbytes-per-sec (for a fixed count use "
                            + "--segments)");
                }
                scaling = ScalingPolicy.fixed(segments == null ? 1 : segments);
            }
            if (retentionTime != null && retentionSize != null) {
                throw new IllegalArgumentException("give only one of --retention-time and --retention-size");
            }
            RetentionPolicy retention = RetentionPolicy.NONE;
            if (retentionTime != null) {
                retention = RetentionPolicy.byTime(retentionTime);
            } else if (retentionSize != null) {
                retention = RetentionPolicy.bySizeBytes(retentionSize);
            }
            configuration = StreamConfiguration.builder().scalingPolicy(scaling).retentionPolicy(retention)
                    .tags(tags).build();
        }

        private void checkSegments(String option, Integer count) {
            int max = SegmentListLimit.maxSegments(stream.scope(), stream.name());
            if (count != null && count > max) {
                throw new IllegalArgumentException(option + " must be at most " + max + " for a stream of these "
                        + "names (a stream of more segments cannot be served: the list of its segments would not fit "
                        + "into one controller reply), but is " + count);
            }
        }

        @Override
        Result execute(ControllerClient controller) {
            if (!controller.createStream(stream, configuration)) {
                throw new AlreadyExistsException("stream '" + stream + "' already exists");
            }
            Map<String, Object> json = json();
            json.put("created", true);
            json.put("config", Formats.json(configuration));
            return Result.of(json, "stream '" + stream + "' created: " + Formats.scaling(configuration
                    .scalingPolicy()) + "; retention " + Formats.retention(configuration.retentionPolicy())
                    + "; tags " + Formats.tags(configuration));
        }
    }

    /** {@code sluice stream list SCOPE}. */
    @Command(name = "list", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Lists the streams of a scope as SCOPE/STREAM, one per line.",
                "Internal streams (named _..., e.g. the _RG streams of reader groups and _MARK streams of "
                    + "watermarks) are left out unless --all is given."},
            footer = Main.EXIT_STATUS)
    static final class ListStreams extends ControllerCommand {
        @Parameters(paramLabel = "SCOPE", description = "the scope")
        String scope;

        @Option(names = "--tag", paramLabel = "TAG", description = "only the streams carrying this tag")
        String tag;

        @Option(names = "--all", description = "also list internal streams")
        boolean all;

        @Override
        void validate() {
            Names.validateName("scope", scope);
        }

        @Override
        Result execute(ControllerClient controller) {
            List<ScopedStream> streams = tag == null ? controller.listStreams(scope)
                    : controller.listStreams(scope, tag);
            List<String> names = streams.stream().filter(s -> all || !s.name().startsWith("_")).sorted()
                    .map(ScopedStream::scopedName).toList();
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("scope", scope);
            json.put("streams", names);
            return new Result(json, names);
        }
    }

    /** {@code sluice stream info SCOPE/STREAM}. */
    @Command(name = "info", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Shows a stream's configuration, its current segments with their routing-key ranges, and "
                    + "its head and tail stream cuts.",
                "head: where reading from the beginning starts (the controller's segments at time 0, i.e. after any "
                    + "truncation); tail: the current segments at their lengths, as the segment stores report them.",
                "Cuts are printed as SEGMENT=OFFSET,... (segments as N.#epoch.E), the form 'stream truncate --to' "
                    + "accepts. A sealed stream has no current segments and no tail."},
            footer = Main.EXIT_STATUS)
    static final class Info extends StreamCommand {
        @Override
        Result execute(ControllerClient controller) {
            Deadline deadline = Deadline.after(config.operationTimeout());
            StreamConfiguration configuration = controller.streamConfiguration(stream);
            StreamSegments current = controller.currentSegments(stream);
            StreamCut head = controller.headStreamCut(stream);
            boolean sealed = current.ranges().isEmpty();
            StreamCut tail = sealed ? StreamCut.UNBOUNDED : tail(controller, current, deadline);

            Map<String, Object> json = json();
            json.put("sealed", sealed);
            json.put("config", Formats.json(configuration));
            json.put("segments", current.ranges().stream().map(Formats::json).toList());
            json.put("head", Formats.json(head));
            json.put("tail", sealed ? null : Formats.json(tail));

            List<String> lines = new ArrayList<>();
            lines.add("stream     " + stream);
            lines.add("state      " + (sealed ? "sealed" : "open"));
            lines.add("scaling    " + Formats.scaling(configuration.scalingPolicy()));
            lines.add("retention  " + Formats.retention(configuration.retentionPolicy()));
            lines.add("tags       " + Formats.tags(configuration));
            if (sealed) {
                lines.add("segments   (none: the stream is sealed)");
            }
            String label = "segments   ";
            for (SegmentWithRange range : current.ranges()) {
                lines.add(label + Formats.shortName(range.segment()) + " " + Formats.keyRange(range));
                label = "           ";
            }
            lines.add("head       " + Formats.cut(head));
            lines.add("tail       " + (sealed ? "(none: the stream is sealed)" : Formats.cut(tail)));
            return new Result(json, lines);
        }
    }

    /** {@code sluice stream seal SCOPE/STREAM}. */
    @Command(name = "seal", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Seals a stream: no more writes; readers can still read it. Sealing is permanent.",
                "Sealing a sealed stream succeeds."},
            footer = Main.EXIT_STATUS)
    static final class Seal extends StreamCommand {
        @Override
        Result execute(ControllerClient controller) {
            controller.sealStream(stream);
            Map<String, Object> json = json();
            json.put("sealed", true);
            return Result.of(json, "stream '" + stream + "' sealed");
        }
    }

    /** {@code sluice stream delete SCOPE/STREAM [--force]}. */
    @Command(name = "delete", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Deletes a stream and its data.",
                "As in Pravega, only a sealed stream can be deleted: seal it first ('stream seal'), or pass --force "
                    + "to seal it and then delete it. Without --force an unsealed stream is not touched "
                    + "(precondition-failed)."},
            footer = Main.EXIT_STATUS)
    static final class Delete extends StreamCommand {
        @Option(names = "--force", description = "seal the stream first if it is not sealed")
        boolean force;

        @Override
        Result execute(ControllerClient controller) {
            boolean sealedFirst = false;
            boolean deleted;
            try {
                deleted = controller.deleteStream(stream);
            } catch (PreconditionFailedException e) {
                if (!force) {
                    throw new PreconditionFailedException(e.getMessage() + " (or pass --force to seal and delete "
                            + "it)", e);
                }
                controller.sealStream(stream);
                sealedFirst = true;
                deleted = controller.deleteStream(stream);
            }
            if (!deleted) {
                throw ProtoMapper.noSuchStream(stream);
            }
            Map<String, Object> json = json();
            json.put("sealedFirst", sealedFirst);
            json.put("deleted", true);
            return Result.of(json, "stream '" + stream + "' " + (sealedFirst ? "sealed and deleted" : "deleted"));
        }
    }

    /** {@code sluice stream truncate SCOPE/STREAM --to tail|head|CUT}. */
    @Command(name = "truncate", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Deletes the data of a stream before a stream cut; readers then start at the cut.",
                "--to tail: everything written so far (the current segments at their lengths); --to head: the "
                    + "current head (changes nothing); or an explicit cut SEGMENT=OFFSET,... with segments as "
                    + "'stream info' prints them (N.#epoch.E), as qualified names, or as segment ids. An explicit "
                    + "cut must cover the whole routing-key space, and no offset may lie beyond its segment's end; "
                    + "offsets must be event boundaries (take them from 'stream info' or a reader).",
                "A sealed stream cannot be truncated (precondition-failed)."},
            footer = Main.EXIT_STATUS)
    static final class Truncate extends StreamCommand {
        @Option(names = "--to", paramLabel = "tail|head|CUT", required = true,
                description = "where the stream will start: tail, head, or SEGMENT=OFFSET,...")
        String to;

        private StreamCut explicit;

        @Override
        void validate() {
            if (!to.equals("tail") && !to.equals("head")) {
                explicit = Formats.parseCut(stream, to);
            }
        }

        @Override
        Result execute(ControllerClient controller) {
            Deadline deadline = Deadline.after(config.operationTimeout());
            StreamCut cut;
            if (explicit == null && to.equals("head")) {
                cut = controller.headStreamCut(stream);
            } else {
                StreamSegments current = controller.currentSegments(stream);
                if (current.ranges().isEmpty()) {
                    throw new PreconditionFailedException("stream '" + stream + "' is sealed");
                }
                if (explicit == null) {
                    cut = tail(controller, current, deadline);
                } else {
                    cut = explicit;
                    check(controller, cut, current.delegationToken(), deadline);
                }
            }
            controller.truncateStream(stream, cut);
            Map<String, Object> json = json();
            json.put("truncatedAt", Formats.json(cut));
            return Result.of(json, "stream '" + stream + "' truncated at " + Formats.cut(cut));
        }

        /** Rejects a cut the controller would accept but the segment stores could not carry out. */
        private void check(ControllerClient controller, StreamCut cut, String token, Deadline deadline) {
            Map<Segment, SegmentInfo> infos;
            try (SegmentLengths lengths = new SegmentLengths(controller, config)) {
                infos = lengths.read(List.copyOf(cut.positions().keySet()), token, deadline);
            }
            cut.positions().forEach((segment, offset) -> {
                long length = infos.get(segment).length();
                if (offset > length) {
                    throw new IllegalArgumentException("offset " + offset + " of segment " + Formats.shortName(segment)
                            + " lies beyond its end (" + length + ")");
                }
            });
            if (!controller.isStreamCutValid(stream, cut)) {
                throw new IllegalArgumentException("stream cut " + Formats.cut(cut) + " is not valid for stream "
                        + stream + ": its segments must cover every routing key exactly once");
            }
        }
    }
}
