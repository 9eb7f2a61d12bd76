package io.msgscope.coordinator.cli;

import io.msgscope.coordinator.sweep.SweepParameter;
import io.msgscope.core.SpecException;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code --size} of every mode in the syntax {@code sweep --sizes} takes (issue 29): an integer with an
 * optional binary suffix, {@code 1k} = 1024, {@code 1m} = 1048576. The range a mode allows is checked
 * later, by the workload, naming the option.
 */
public final class SizeConverter implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
        try {
            return (int) SweepParameter.parseSize("--size", value.trim());
        } catch (SpecException e) {
            throw new TypeConversionException(e.getMessage().substring("--size: ".length()));
        }
    }
}
