// A Java program answering one line: it starts under the runner's default memory limit.
import java.util.Scanner;

public class Hello {
    public static void main(String[] args) {
        System.out.println("hello from Java");
        Scanner in = new Scanner(System.in);
        String line = in.nextLine();
        System.out.println("got " + line);
    }
}
