// patched state of the second fixture
void bar(int a, int b)
{
	pr_err("x %d\n",
	       a - b);
	a = a - b;
}
