#!/usr/bin/env perl
# A stdio bot in Perl (core modules only): the referee's messages arrive one JSON object per
# line on stdin; replies go one per line on stdout. Declare it as `stdio:perl bot.pl`:
#   arena play machiavelli --bot pl="stdio:perl sample_bots/stdio/bot.pl" --bot r=builtin:random
# stdout carries the protocol, so debug output goes to stderr (the bot's log).
use strict;
use warnings;
use JSON::PP;

my $json = JSON::PP->new->utf8->canonical;
$| = 1;    # flush every line at once: a buffered reply would time out

sub send_message { print $json->encode($_[0]), "\n" }

# The strategy: replace `act` with your own. machiavelli lists every legal action in
# `options`: build when we can, else pick one at random. For machiavelli-rummy (free-form
# actions) this simple bot always draws, which is always legal.

# A new game: seed `rand` from game_start.bot_seed (an integer below 2^53), so that the same
# game seed replays the same game. Perl's srand keeps 32 bits, so the high bits are folded in.
sub game_start {
    my ($message) = @_;
    my $seed = $message->{bot_seed};
    if (!defined $seed || $seed !~ /\A[0-9]+\z/) {
        warn "game_start without a valid bot_seed: seeding with 0\n";
        $seed = 0;
    }
    srand(($seed ^ ($seed >> 32)) & 0xFFFFFFFF);
}

sub act {
    my ($request) = @_;
    my $options = $request->{options};
    return { type => 'draw' } unless $options && @$options;
    my @builds = grep { ref $_ eq 'HASH' && ($_->{type} // '') eq 'build' } @$options;
    my $pool = @builds ? \@builds : $options;
    return $pool->[ int rand @$pool ];
}

send_message({ type => 'hello', token => $ENV{ARENA_TOKEN} // '', name => 'starter-perl',
               version => '1.0.0', protocol => 1 });
my $welcomed = 0;
while (my $line = <STDIN>) {
    my $message = eval { $json->decode($line) };
    if (!$message || ref $message ne 'HASH') { warn "ignored a line that is not a message\n"; next }
    my $type = $message->{type} // '';
    if ($type eq 'welcome') { $welcomed = 1 }
    elsif ($type eq 'game_start') { game_start($message) }
    elsif ($type eq 'request') {
        send_message({ type => 'action', id => $message->{id}, action => act($message) });
    }
    elsif ($type eq 'error') {
        warn "arena: $message->{code}: $message->{detail}\n";
        exit 1 unless $welcomed;    # refused at the handshake: no seat
    }
    elsif ($type eq 'shutdown') { exit 0 }
}
