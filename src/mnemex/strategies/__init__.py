"""mnemex.strategies"""
