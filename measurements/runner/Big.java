// Fills N MiB (the argument) in arrays of 64 MiB, and says whether it got them.
public class Big {
    public static void main(String[] args) {
        int mib = Integer.parseInt(args[0]);
        java.util.List<byte[]> kept = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < mib / 64; i++) {
                byte[] block = new byte[64 << 20];
                java.util.Arrays.fill(block, (byte) 1);
                kept.add(block);
            }
            System.out.println("granted " + mib + " MiB");
        } catch (OutOfMemoryError e) {
            System.out.println("refused after " + kept.size() * 64 + " MiB: " + e);
        }
    }
}
