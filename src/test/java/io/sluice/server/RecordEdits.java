package io.sluice.server;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;

import io.sluice.wire.WireCommand;

/**
 * Copies of wire commands (all records) with one component replaced, through the canonical constructor, so a fuzzer
 * can put an extreme value in any field of any command and still encode it with the project's codec.
 */
final class RecordEdits {
    private RecordEdits() {
    }

    /** @return the indexes of {@code command}'s components of type {@code type} */
    static List<Integer> componentsOf(WireCommand command, Class<?> type) {
        List<Integer> out = new ArrayList<>();
        RecordComponent[] components = command.getClass().getRecordComponents();
        for (int i = 0; components != null && i < components.length; i++) {
            if (components[i].getType() == type) {
                out.add(i);
            }
        }
        return out;
    }

    /** @return the name of component {@code index} of {@code command} */
    static String name(WireCommand command, int index) {
        return command.getClass().getRecordComponents()[index].getName();
    }

    /** @return the value of component {@code index} of {@code command} */
    static Object get(WireCommand command, int index) {
        try {
            return command.getClass().getRecordComponents()[index].getAccessor().invoke(command);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("reading " + name(command, index) + " of " + command.type(), e);
        }
    }

    /**
     * @return a copy of {@code command} with component {@code index} set to {@code value}, or {@code null} when the
     *     command's constructor refuses the value
     */
    static WireCommand with(WireCommand command, int index, Object value) {
        RecordComponent[] components = command.getClass().getRecordComponents();
        Class<?>[] types = new Class<?>[components.length];
        Object[] args = new Object[components.length];
        for (int i = 0; i < components.length; i++) {
            types[i] = components[i].getType();
            args[i] = i == index ? value : get(command, i);
        }
        try {
            Constructor<?> canonical = command.getClass().getDeclaredConstructor(types);
            return (WireCommand) canonical.newInstance(args);
        } catch (InvocationTargetException e) {
            return null;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("no canonical constructor of " + command.getClass(), e);
        }
    }
}
