package io.almanac.samples;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.InvokeDynamicInsnNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.Interpreter;
import org.objectweb.asm.tree.analysis.Value;

/**
 * The precise half of {@link NoMessageParsingRulesTest}: a data flow over the bytecode of the classes
 * ArchUnit imported, which follows a message-like text from where it is read (see {@link #isSource})
 * to where it is parsed (see {@link #isSink}), through locals, casts, ternaries, the String methods
 * that only reshape a text ({@code strip}, {@code substring}, {@code String.valueOf}, ...), lambdas'
 * captured values, and calls between the imported classes (a text handed to a helper taints the
 * helper's parameter; a helper returning one taints its result), to a fixed point. It does not follow
 * a text through a field, a collection or a string concatenation: those are rendering, or are left to
 * the broad rule's co-occurrence check.
 */
final class MessageFlow {

  /** The public accessors of io.almanac types whose String is a message-like text. */
  static final Set<String> TEXT_ACCESSORS = Set.of("reason", "detail", "note", "summary", "message");

  /**
   * A name that says its String is a message-like text, for a String local or parameter (as the class
   * file's LocalVariableTable names it) and for an io.almanac type's String field or no-argument
   * accessor: {@code failReason}, {@code lastReason()}, {@code detail}, {@code note}... This catches the
   * text that arrives by no typed source (a map's value, a JSON field, a field set earlier).
   */
  static final java.util.regex.Pattern TEXT_NAME = java.util.regex.Pattern.compile("(?i).*(detail|reason|message|note).*");

  /** A text parsed: where, and by what call. */
  record Finding(String className, String method, int line, String sink) {
    @Override
    public String toString() {
      return className + "." + method + " (line " + line + "): " + sink;
    }
  }

  private final Map<String, ClassNode> nodes = new HashMap<>();
  private final Map<String, List<String>> supertypes = new HashMap<>(); // internal name -> itself and its imported supertypes
  private final Set<String> taintedParams = new HashSet<>(); // owner.name+desc#parameter
  private final Set<String> taintedReturns = new HashSet<>(); // owner.name+desc
  private final Set<String> known = new HashSet<>(); // the imported classes and their supertypes
  private static final Map<String, Boolean> THROWABLES = new java.util.concurrent.ConcurrentHashMap<>();
  private final Set<Finding> findings = new LinkedHashSet<>();
  private boolean changed;

  private MessageFlow(JavaClasses classes) {
    for (JavaClass c : classes) {
      String uri = c.getSource().map(s -> s.getUri().toString()).orElse(null);
      if (uri == null) {
        continue;
      }
      try (InputStream in = java.net.URI.create(uri).toURL().openStream()) {
        ClassNode node = new ClassNode();
        new ClassReader(in).accept(node, 0);
        String name = node.name;
        nodes.put(name, node);
        List<String> sup = new ArrayList<>();
        sup.add(name);
        c.getAllRawSuperclasses().forEach(s -> sup.add(s.getName().replace('.', '/')));
        c.getAllRawInterfaces().forEach(s -> sup.add(s.getName().replace('.', '/')));
        supertypes.put(name, sup);
        known.addAll(sup);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** Every place where a message-like text reaches a parsing call, in the given classes. */
  static Set<Finding> findings(JavaClasses classes) {
    MessageFlow flow = new MessageFlow(classes);
    do {
      flow.changed = false;
      flow.findings.clear();
      for (ClassNode c : flow.nodes.values()) {
        for (MethodNode m : c.methods) {
          flow.analyze(c, m);
        }
      }
    } while (flow.changed);
    return flow.findings;
  }

  private void analyze(ClassNode c, MethodNode m) {
    if (m.instructions.size() == 0) {
      return;
    }
    try {
      new Analyzer<>(new Taints(c, m)).analyze(c.name, m);
    } catch (AnalyzerException e) {
      throw new IllegalStateException("cannot analyse " + c.name + "." + m.name + m.desc, e);
    }
  }

  /** Whether the class file names its locals (javac -g): the names this flow reads them by. */
  static boolean namesLocals(JavaClass c) {
    try (InputStream in = c.getSource().orElseThrow().getUri().toURL().openStream()) {
      ClassNode node = new ClassNode();
      new ClassReader(in).accept(node, 0);
      return node.methods.stream().anyMatch(m -> m.localVariables != null && !m.localVariables.isEmpty());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private boolean paramTainted(String owner, String name, String desc, int index) {
    for (String s : supertypes.getOrDefault(owner, List.of(owner))) {
      if (taintedParams.contains(s + "." + name + desc + "#" + index)) {
        return true;
      }
    }
    return false;
  }

  private void taintParam(String owner, String name, String desc, int index) {
    if (taintedParams.add(owner + "." + name + desc + "#" + index)) {
      changed = true;
    }
  }

  private void taintReturn(String owner, String name, String desc) {
    for (String s : supertypes.getOrDefault(owner, List.of(owner))) {
      if (taintedReturns.add(s + "." + name + desc)) {
        changed = true;
      }
    }
  }

  /** A call that yields a message-like text: a Throwable's message, or a text accessor of an io.almanac type. */
  private boolean isSource(MethodInsnNode call) {
    if (!call.desc.equals("()Ljava/lang/String;")) {
      return false;
    }
    if (call.name.equals("getMessage") || call.name.equals("getLocalizedMessage")) {
      return isThrowable(call.owner);
    }
    return call.owner.startsWith("io/almanac/")
        && (TEXT_ACCESSORS.contains(call.name) || TEXT_NAME.matcher(call.name).matches());
  }

  /** Whether the class of this name (binary or internal) is a Throwable, asked of the class loader. */
  static boolean isThrowable(String name) {
    return THROWABLES.computeIfAbsent(name.replace('/', '.'), o -> {
      try {
        return Throwable.class.isAssignableFrom(Class.forName(o, false, MessageFlow.class.getClassLoader()));
      } catch (ClassNotFoundException | LinkageError e) {
        return false;
      }
    });
  }

  /** The calls that read a fact out of a text (or compare one), each with the operands that count. */
  private static String sink(MethodInsnNode call) {
    String owner = call.owner;
    String name = call.name;
    if (owner.equals("java/lang/String") && Set.of("contains", "startsWith", "endsWith", "matches", "indexOf", "lastIndexOf",
        "split", "replaceFirst", "regionMatches", "equals", "equalsIgnoreCase", "contentEquals", "compareTo", "hashCode")
        .contains(name)) {
      return "String." + name; // hashCode: a switch on the text
    }
    if (owner.equals("java/util/regex/Pattern") && Set.of("matcher", "matches", "split", "splitAsStream").contains(name)) {
      return "Pattern." + name;
    }
    if (owner.equals("java/util/Objects") && name.equals("equals")) {
      return "Objects.equals";
    }
    return null;
  }

  /** The String methods whose result is the same text, reshaped. */
  private static boolean reshapes(MethodInsnNode call) {
    return (call.owner.equals("java/lang/String") && Set.of("strip", "trim", "stripLeading", "stripTrailing", "toLowerCase",
        "toUpperCase", "substring", "intern", "valueOf", "toString", "replace", "replaceAll").contains(call.name))
        || (call.owner.equals("java/util/Objects") && Set.of("toString", "requireNonNull", "requireNonNullElse").contains(call.name));
  }

  private static int line(AbstractInsnNode insn) {
    for (AbstractInsnNode i = insn; i != null; i = i.getPrevious()) {
      if (i instanceof LineNumberNode l) {
        return l.line;
      }
    }
    return -1;
  }

  /** A value on the stack or in a local: its size, and whether it holds a message-like text. */
  private record V(int size, boolean text) implements Value {
    @Override
    public int getSize() {
      return size;
    }
  }

  private static final V ONE = new V(1, false);
  private static final V TWO = new V(2, false);
  private static final V TEXT = new V(1, true);

  private static V of(Type t) {
    return t.getSize() == 2 ? TWO : ONE;
  }

  private final class Taints extends Interpreter<V> {
    private final ClassNode owner;
    private final MethodNode method;
    private final Map<Integer, Integer> paramOfLocal = new HashMap<>();

    Taints(ClassNode owner, MethodNode method) {
      super(Opcodes.ASM9);
      this.owner = owner;
      this.method = method;
      int local = (method.access & Opcodes.ACC_STATIC) != 0 ? 0 : 1;
      Type[] params = Type.getArgumentTypes(method.desc);
      for (int i = 0; i < params.length; i++) {
        paramOfLocal.put(local, i);
        local += params[i].getSize();
      }
    }

    @Override
    public V newValue(Type type) {
      if (type == Type.VOID_TYPE) {
        return null;
      }
      return type == null ? ONE : of(type);
    }

    @Override
    public V newParameterValue(boolean isInstanceMethod, int local, Type type) {
      Integer p = paramOfLocal.get(local);
      if (p != null && type.getSize() == 1 && paramTainted(owner.name, method.name, method.desc, p)) {
        return TEXT;
      }
      return of(type);
    }

    @Override
    public V newOperation(AbstractInsnNode insn) {
      return switch (insn.getOpcode()) {
        case Opcodes.LCONST_0, Opcodes.LCONST_1, Opcodes.DCONST_0, Opcodes.DCONST_1 -> TWO;
        case Opcodes.LDC -> {
          Object c = ((org.objectweb.asm.tree.LdcInsnNode) insn).cst;
          yield c instanceof Long || c instanceof Double ? TWO : ONE;
        }
        case Opcodes.GETSTATIC -> of(Type.getType(((FieldInsnNode) insn).desc));
        default -> ONE;
      };
    }

    @Override
    public V copyOperation(AbstractInsnNode insn, V value) {
      if (insn.getOpcode() == Opcodes.ALOAD && !value.text() && method.localVariables != null) {
        int var = ((org.objectweb.asm.tree.VarInsnNode) insn).var;
        int at = method.instructions.indexOf(insn);
        for (org.objectweb.asm.tree.LocalVariableNode l : method.localVariables) {
          if (l.index == var && l.desc.equals("Ljava/lang/String;") && TEXT_NAME.matcher(l.name).matches()
              && method.instructions.indexOf(l.start) <= at && at < method.instructions.indexOf(l.end)) {
            return TEXT; // a String local or parameter named like a message
          }
        }
      }
      return value;
    }

    @Override
    public V unaryOperation(AbstractInsnNode insn, V value) {
      return switch (insn.getOpcode()) {
        case Opcodes.CHECKCAST -> value;
        case Opcodes.GETFIELD -> {
          FieldInsnNode f = (FieldInsnNode) insn;
          yield f.desc.equals("Ljava/lang/String;") && f.owner.startsWith("io/almanac/")
              && (TEXT_ACCESSORS.contains(f.name) || TEXT_NAME.matcher(f.name).matches())
              ? TEXT : of(Type.getType(f.desc));
        }
        case Opcodes.I2L, Opcodes.I2D, Opcodes.L2D, Opcodes.F2L, Opcodes.F2D, Opcodes.LNEG, Opcodes.DNEG, Opcodes.D2L -> TWO;
        case Opcodes.IFEQ, Opcodes.IFNE, Opcodes.IFLT, Opcodes.IFGE, Opcodes.IFGT, Opcodes.IFLE, Opcodes.TABLESWITCH,
            Opcodes.LOOKUPSWITCH, Opcodes.IRETURN, Opcodes.LRETURN, Opcodes.FRETURN, Opcodes.DRETURN, Opcodes.ARETURN,
            Opcodes.PUTSTATIC, Opcodes.ATHROW, Opcodes.MONITORENTER, Opcodes.MONITOREXIT, Opcodes.IFNULL, Opcodes.IFNONNULL -> null;
        default -> ONE;
      };
    }

    @Override
    public V binaryOperation(AbstractInsnNode insn, V v1, V v2) {
      return switch (insn.getOpcode()) {
        case Opcodes.LALOAD, Opcodes.DALOAD, Opcodes.LADD, Opcodes.DADD, Opcodes.LSUB, Opcodes.DSUB, Opcodes.LMUL, Opcodes.DMUL,
            Opcodes.LDIV, Opcodes.DDIV, Opcodes.LREM, Opcodes.DREM, Opcodes.LSHL, Opcodes.LSHR, Opcodes.LUSHR, Opcodes.LAND,
            Opcodes.LOR, Opcodes.LXOR -> TWO;
        case Opcodes.IF_ICMPEQ, Opcodes.IF_ICMPNE, Opcodes.IF_ICMPLT, Opcodes.IF_ICMPGE, Opcodes.IF_ICMPGT, Opcodes.IF_ICMPLE,
            Opcodes.IF_ACMPEQ, Opcodes.IF_ACMPNE, Opcodes.PUTFIELD -> null;
        default -> ONE;
      };
    }

    @Override
    public V ternaryOperation(AbstractInsnNode insn, V v1, V v2, V v3) {
      return null;
    }

    @Override
    public V naryOperation(AbstractInsnNode insn, List<? extends V> values) {
      if (insn instanceof InvokeDynamicInsnNode indy) {
        if (indy.bsmArgs.length > 1 && indy.bsmArgs[1] instanceof Handle h && nodes.containsKey(h.getOwner())) {
          for (int i = 0; i < values.size(); i++) { // captured values are the implementation's first parameters
            int param = h.getTag() == Opcodes.H_INVOKESTATIC ? i : i - 1; // else the first is the receiver
            if (values.get(i).text() && param >= 0) {
              taintParam(h.getOwner(), h.getName(), h.getDesc(), param);
            }
          }
        }
        return of(Type.getReturnType(indy.desc));
      }
      if (!(insn instanceof MethodInsnNode call)) {
        return ONE; // MULTIANEWARRAY
      }
      Type returns = Type.getReturnType(call.desc);
      boolean anyText = values.stream().anyMatch(V::text);
      String sink = sink(call);
      if (sink != null && anyText) {
        findings.add(new Finding(owner.name.replace('/', '.'), method.name, line(insn), sink));
      }
      int first = call.getOpcode() == Opcodes.INVOKESTATIC ? 0 : 1;
      if (known.contains(call.owner)) {
        for (int i = first; i < values.size(); i++) {
          if (values.get(i).text()) {
            taintParam(call.owner, call.name, call.desc, i - first);
          }
        }
      }
      if (returns == Type.VOID_TYPE) {
        return null;
      }
      if (isSource(call) || (reshapes(call) && anyText) || taintedReturns.contains(call.owner + "." + call.name + call.desc)) {
        return TEXT;
      }
      return of(returns);
    }

    @Override
    public void returnOperation(AbstractInsnNode insn, V value, V expected) {
      if (value.text()) {
        taintReturn(owner.name, method.name, method.desc);
      }
    }

    @Override
    public V merge(V v, V w) {
      if (v.equals(w)) {
        return v;
      }
      return new V(Math.min(v.size(), w.size()), v.text() || w.text());
    }
  }

  static boolean sameFinding(Finding f, String className, String method) {
    return Objects.equals(f.className(), className) && Objects.equals(f.method(), method);
  }
}
