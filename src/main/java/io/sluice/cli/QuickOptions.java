package io.sluice.cli;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/**
 * Fills a command's {@code @Option} fields from its arguments without building picocli's model, for the one command
 * whose start-up time matters ({@code sluice server}, see docs/benchmarks.md "Start-up"). picocli's classes cannot
 * be kept in the JVM's start-up cache (they are Java 5 class files) and its model is built by reflection, together
 * some 300 ms of a cold start; reading the same annotations here costs a few.
 *
 * <p>It understands only the plain, correct command line: {@code --name value}, {@code --name=value}, flags, default
 * values, converters (which may make any type), and exclusive {@code @ArgGroup}s of options. Anything else (help, version, a subcommand, a
 * positional argument, an unknown or repeated option, a value that does not convert, two options of one exclusive
 * group, a field type it does not know) makes {@link #fill} answer false, and the caller hands the line to picocli,
 * whose model then says what is wrong the usual way. So the annotations stay the one description of the options.
 */
final class QuickOptions {
    /** {@code Option.defaultValue()} when the option has none. */
    private static final String NO_DEFAULT = "__no_default_value__";

    private final Map<String, Binding> byName = new HashMap<>();
    private final Set<Binding> given = new HashSet<>();

    /** One option field of the command or of one of its argument groups. */
    private record Binding(Object owner, Field field, Option option, Object group) {
    }

    private QuickOptions() {
    }

    /**
     * Sets {@code command}'s option fields (and those of its {@code @ArgGroup} fields) from {@code args}, defaults
     * first.
     *
     * @param command an instance of a picocli command class, fields at their initial values
     * @param args the command's arguments (without the command's name)
     * @return true if the line was understood and every field is set; false if picocli must parse it (the command's
     *     fields may then be half-set: use a fresh instance)
     */
    static boolean fill(Object command, String[] args) {
        QuickOptions q = new QuickOptions();
        try {
            if (!q.bind(command, null) || !q.applyDefaults()) {
                return false;
            }
            return q.parse(args);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // e.g. a converter's TypeConversionException: picocli reports it properly
            return false;
        }
    }

    private boolean bind(Object owner, Object group) throws ReflectiveOperationException {
        for (Class<?> c = owner.getClass(); c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                Option option = f.getAnnotation(Option.class);
                ArgGroup argGroup = f.getAnnotation(ArgGroup.class);
                if (argGroup != null) {
                    if (!argGroup.exclusive() || group != null) {
                        return false;
                    }
                    f.setAccessible(true);
                    Object members = f.get(owner);
                    if (members == null || !bind(members, members)) {
                        return false;
                    }
                } else if (option != null) {
                    if (option.help() || option.usageHelp() || option.versionHelp() || option.arity().length() > 0
                            || (option.converter().length == 0 && !known(f.getType()))) {
                        return false;
                    }
                    f.setAccessible(true);
                    Binding b = new Binding(owner, f, option, group);
                    for (String name : option.names()) {
                        byName.put(name, b);
                    }
                } else if (f.getAnnotation(picocli.CommandLine.Parameters.class) != null
                        || f.getAnnotation(picocli.CommandLine.Mixin.class) != null) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean known(Class<?> type) {
        return type == String.class || type == int.class || type == Integer.class || type == long.class
                || type == Long.class || type == boolean.class || type == Path.class;
    }

    private boolean applyDefaults() throws ReflectiveOperationException {
        for (Binding b : Set.copyOf(byName.values())) {
            String value = b.option().defaultValue();
            if (value.contains("${") || Option.NULL_VALUE.equals(value)) {
                return false; // a variable or the null value: picocli resolves those
            }
            if (!NO_DEFAULT.equals(value)) {
                set(b, value);
            }
        }
        return true;
    }

    private boolean parse(String[] args) throws ReflectiveOperationException {
        Set<Object> groupsUsed = new HashSet<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            int eq = arg.indexOf('=');
            String name = arg.startsWith("--") && eq > 0 ? arg.substring(0, eq) : arg;
            Binding b = byName.get(name);
            if (b == null || !given.add(b)) {
                return false; // unknown, positional, a subcommand, help, or given twice
            }
            if (b.group() != null && !groupsUsed.add(b.group())) {
                return false; // a second option of an exclusive group
            }
            boolean flag = b.field().getType() == boolean.class;
            if (flag) {
                if (name.length() != arg.length()) {
                    return false; // --flag=value
                }
                b.field().setBoolean(b.owner(), true);
            } else if (name.length() != arg.length()) {
                set(b, arg.substring(eq + 1));
            } else if (i + 1 < args.length && !byName.containsKey(args[i + 1])) {
                set(b, args[++i]);
            } else {
                return false; // the value is missing (picocli takes an option name as no value)
            }
        }
        return true;
    }

    private static void set(Binding b, String value) throws ReflectiveOperationException {
        Field f = b.field();
        Class<?> type = f.getType();
        Class<? extends ITypeConverter<?>>[] converters = b.option().converter();
        Object v;
        if (converters.length == 1) {
            Constructor<? extends ITypeConverter<?>> c = converters[0].getDeclaredConstructor();
            c.setAccessible(true);
            try {
                v = c.newInstance().convert(value);
            } catch (Exception e) {
                throw new IllegalArgumentException(e);
            }
        } else if (converters.length > 1) {
            throw new IllegalArgumentException("several converters");
        } else if (type == String.class) {
            v = value;
        } else if (type == int.class || type == Integer.class) {
            v = Integer.valueOf(value);
        } else if (type == long.class || type == Long.class) {
            v = Long.valueOf(value);
        } else if (type == boolean.class) {
            v = Boolean.valueOf(value);
        } else {
            v = Path.of(value);
        }
        f.set(b.owner(), v);
    }
}
