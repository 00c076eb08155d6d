package org.panamaverbs.surface;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The public surface of one class file, read directly from its bytes (JVMS chapter 4): what a caller
 * compiled against the class can link to or inherit. No class is loaded, so neither DiSNI's static
 * initialisers (which load {@code libdisni}) nor ours run, and the two sets of classes of the same names
 * never meet in one class loader.
 *
 * <p>Kept: the type's access and kind (from its {@code InnerClasses} entry when it is nested), its
 * superclass, interfaces and generic signature; every public or protected field (descriptor, static,
 * final, volatile, transient, enum constant, generic signature, {@code ConstantValue}); every public or
 * protected method and constructor (descriptor, static, final, abstract, synchronized is left out as it is
 * no part of the contract, bridge and varargs, generic signature, declared exceptions); the enum
 * constants in declaration order. Deprecation (the class file's {@code Deprecated} attribute) is kept apart, in
 * {@link #deprecated()}, so that comparing two surfaces' members compares linkage only.
 *
 * <p>Used by disni's {@code BinaryCompatibilityTest} and by {@link ApiSurface}; shared through this module's test jar.
 */
public record ClassSurface(
        String name,
        String kind,
        String superName,
        List<String> interfaces,
        String signature,
        Map<String, String> fields,
        Map<String, String> methods,
        List<String> enumConstants,
        boolean visible,
        Set<String> deprecated) {

    /** The key {@link #deprecated()} holds when the type itself is deprecated. */
    public static final String TYPE = "<type>";

    private static final int PUBLIC = 0x0001, PRIVATE = 0x0002, PROTECTED = 0x0004, STATIC = 0x0008,
            FINAL = 0x0010, VOLATILE_OR_BRIDGE = 0x0040, TRANSIENT_OR_VARARGS = 0x0080,
            INTERFACE = 0x0200, ABSTRACT = 0x0400, SYNTHETIC = 0x1000, ANNOTATION = 0x2000, ENUM = 0x4000;

    /** Parses a class file; {@code visible} is false for types neither public nor protected. */
    public static ClassSurface parse(byte[] bytes) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort();
        in.readUnsignedShort();
        int count = in.readUnsignedShort();
        Object[] pool = new Object[count];
        int[] tags = new int[count];
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            tags[i] = tag;
            switch (tag) {
                case 1 -> pool[i] = in.readUTF();
                case 3 -> pool[i] = in.readInt();
                case 4 -> pool[i] = in.readFloat();
                case 5 -> { pool[i] = in.readLong(); i++; }
                case 6 -> { pool[i] = in.readDouble(); i++; }
                case 7, 8, 16, 19, 20 -> pool[i] = in.readUnsignedShort();
                case 9, 10, 11, 12, 17, 18 -> { in.readUnsignedShort(); in.readUnsignedShort(); }
                case 15 -> { in.readUnsignedByte(); in.readUnsignedShort(); }
                default -> throw new IOException("constant pool tag " + tag + " at " + i);
            }
        }
        int access = in.readUnsignedShort();
        String name = className(pool, in.readUnsignedShort());
        int superIndex = in.readUnsignedShort();
        String superName = superIndex == 0 ? null : className(pool, superIndex);
        List<String> interfaces = new ArrayList<>();
        for (int n = in.readUnsignedShort(); n > 0; n--) {
            interfaces.add(className(pool, in.readUnsignedShort()));
        }
        interfaces.sort(null);

        Set<String> deprecated = new TreeSet<>();
        Map<String, String> fields = new TreeMap<>();
        List<String> enumConstants = new ArrayList<>();
        for (int n = in.readUnsignedShort(); n > 0; n--) {
            int flags = in.readUnsignedShort();
            String fieldName = (String) pool[in.readUnsignedShort()];
            String descriptor = (String) pool[in.readUnsignedShort()];
            String signature = null;
            String constant = null;
            for (int a = in.readUnsignedShort(); a > 0; a--) {
                String attribute = (String) pool[in.readUnsignedShort()];
                int length = in.readInt();
                if (attribute.equals("Signature")) {
                    signature = (String) pool[in.readUnsignedShort()];
                } else if (attribute.equals("ConstantValue")) {
                    int index = in.readUnsignedShort();
                    constant = constant(pool, tags, index);
                } else if (attribute.equals("Deprecated")) {
                    deprecated.add(fieldName);
                } else {
                    in.skipNBytes(length);
                }
            }
            if ((flags & ENUM) != 0) {
                enumConstants.add(fieldName);
            }
            if ((flags & (PUBLIC | PROTECTED)) == 0) {
                continue;
            }
            StringBuilder s = new StringBuilder(access(flags));
            if ((flags & STATIC) != 0) s.append(" static");
            if ((flags & FINAL) != 0) s.append(" final");
            if ((flags & VOLATILE_OR_BRIDGE) != 0) s.append(" volatile");
            if ((flags & TRANSIENT_OR_VARARGS) != 0) s.append(" transient");
            if ((flags & ENUM) != 0) s.append(" enum-constant");
            s.append(' ').append(descriptor);
            if (signature != null) s.append(" signature ").append(signature);
            if (constant != null) s.append(" = ").append(constant);
            fields.put(fieldName, s.toString());
        }

        Map<String, String> methods = new TreeMap<>();
        for (int n = in.readUnsignedShort(); n > 0; n--) {
            int flags = in.readUnsignedShort();
            String methodName = (String) pool[in.readUnsignedShort()];
            String descriptor = (String) pool[in.readUnsignedShort()];
            String signature = null;
            List<String> exceptions = new ArrayList<>();
            for (int a = in.readUnsignedShort(); a > 0; a--) {
                String attribute = (String) pool[in.readUnsignedShort()];
                int length = in.readInt();
                if (attribute.equals("Signature")) {
                    signature = (String) pool[in.readUnsignedShort()];
                } else if (attribute.equals("Exceptions")) {
                    for (int e = in.readUnsignedShort(); e > 0; e--) {
                        exceptions.add(className(pool, in.readUnsignedShort()));
                    }
                } else if (attribute.equals("Deprecated")) {
                    deprecated.add(methodName + descriptor);
                } else {
                    in.skipNBytes(length);
                }
            }
            if ((flags & (PUBLIC | PROTECTED)) == 0 || methodName.equals("<clinit>")) {
                continue;
            }
            exceptions.sort(null);
            StringBuilder s = new StringBuilder(access(flags));
            if ((flags & STATIC) != 0) s.append(" static");
            if ((flags & FINAL) != 0) s.append(" final");
            if ((flags & ABSTRACT) != 0) s.append(" abstract");
            if ((flags & VOLATILE_OR_BRIDGE) != 0) s.append(" bridge");
            if ((flags & TRANSIENT_OR_VARARGS) != 0) s.append(" varargs");
            if ((flags & SYNTHETIC) != 0) s.append(" synthetic");
            if (signature != null) s.append(" signature ").append(signature);
            if (!exceptions.isEmpty()) s.append(" throws ").append(String.join(",", exceptions));
            methods.put(methodName + descriptor, s.toString());
        }

        String signature = null;
        int typeAccess = access;
        for (int a = in.readUnsignedShort(); a > 0; a--) {
            String attribute = (String) pool[in.readUnsignedShort()];
            int length = in.readInt();
            if (attribute.equals("Signature")) {
                signature = (String) pool[in.readUnsignedShort()];
            } else if (attribute.equals("InnerClasses")) {
                for (int c = in.readUnsignedShort(); c > 0; c--) {
                    int inner = in.readUnsignedShort();
                    in.readUnsignedShort();
                    in.readUnsignedShort();
                    int innerFlags = in.readUnsignedShort();
                    if (className(pool, inner).equals(name)) {
                        typeAccess = innerFlags;
                    }
                }
            } else if (attribute.equals("Deprecated")) {
                deprecated.add(TYPE);
            } else {
                in.skipNBytes(length);
            }
        }
        boolean visible = (typeAccess & (PUBLIC | PROTECTED)) != 0 && (typeAccess & PRIVATE) == 0;
        String kind;
        if ((access & ANNOTATION) != 0) kind = "annotation";
        else if ((access & INTERFACE) != 0) kind = "interface";
        else if ((access & ENUM) != 0) kind = "enum";
        else if ((access & ABSTRACT) != 0) kind = "abstract class";
        else if ((access & FINAL) != 0) kind = "final class";
        else kind = "class";
        String prefix = access(typeAccess) + ((typeAccess & STATIC) != 0 ? " static " : " ");
        return new ClassSurface(name.replace('/', '.'), prefix + kind,
                superName == null ? null : superName.replace('/', '.'),
                interfaces.stream().map(i -> i.replace('/', '.')).toList(),
                signature, fields, methods, enumConstants, visible, deprecated);
    }

    private static String access(int flags) {
        if ((flags & PUBLIC) != 0) return "public";
        if ((flags & PROTECTED) != 0) return "protected";
        if ((flags & PRIVATE) != 0) return "private";
        return "package-private";
    }

    private static String className(Object[] pool, int classIndex) {
        return (String) pool[(Integer) pool[classIndex]];
    }

    private static String constant(Object[] pool, int[] tags, int index) {
        return switch (tags[index]) {
            case 3 -> "int " + pool[index];
            case 4 -> "float " + pool[index];
            case 5 -> "long " + pool[index];
            case 6 -> "double " + pool[index];
            case 8 -> "String \"" + pool[(Integer) pool[index]] + "\"";
            default -> "tag " + tags[index];
        };
    }
}
