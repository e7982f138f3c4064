// patched state of the fixture
static int helper(int a)
{
	return a * 2;
}

int foo_compute(int a,
		int b)
{
	int x = helper(a);

	x += b;
	return x;
}

static const int table[] = {
	1, 2, 3,
};

void foo_tail(void)
{
}
