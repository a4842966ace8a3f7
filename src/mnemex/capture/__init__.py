"""mnemex.capture"""
